package chaos_test

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/internal/chaos"
	"github.com/vfskit/vfskit/vfs"
)

func TestFaultFSFailLoseCrash(t *testing.T) {
	ctx := t.Context()
	inner := memfs.New()
	f := chaos.NewFaultFS(inner)
	p := vfs.MustPath("/a")

	f.Set(chaos.FSFaults{Fail: 1})
	require.ErrorIs(t, vfs.WriteFile(ctx, f, p, []byte("x"), vfs.NoOverwrite), chaos.ErrInjected)
	ok, err := vfs.Exists(ctx, inner, p)
	require.NoError(t, err)
	assert.False(t, ok, "a failed operation never reaches the store")

	f.Set(chaos.FSFaults{Lose: 1})
	require.ErrorIs(t, f.Mkdirs(ctx, vfs.MustPath("/d")), chaos.ErrInjected)
	st, err := inner.Stat(ctx, vfs.MustPath("/d"))
	require.NoError(t, err, "a lost answer: the operation was carried out")
	assert.True(t, st.IsDir)

	f.Set(chaos.FSFaults{})
	require.NoError(t, vfs.WriteFile(ctx, f, p, []byte("x"), vfs.NoOverwrite))
	f.CrashAfter(1)
	_, err = f.Stat(ctx, p)
	require.NoError(t, err, "one operation left before the crash")
	_, err = f.Stat(ctx, p)
	require.ErrorIs(t, err, chaos.ErrInjected, "dead")
	_, err = f.List(ctx, vfs.MustPath("/"))
	require.ErrorIs(t, err, chaos.ErrInjected, "still dead")
	f.Revive()
	_, err = f.Stat(ctx, p)
	require.NoError(t, err)

	c := f.Counts()
	assert.Equal(t, 1, c.Crashes)
	assert.Equal(t, 2, c.DeadOps)
	assert.Equal(t, 1, c.Lost)
	assert.GreaterOrEqual(t, c.Failed, 1)
	assert.Equal(t, c.Failed+c.Lost+c.DeadOps, c.Faulted())
}

func TestFaultFSStreamCloseFailsPublishesNothing(t *testing.T) {
	ctx := t.Context()
	inner := memfs.New()
	f := chaos.NewFaultFS(inner)
	p := vfs.MustPath("/s")
	out, err := f.Create(ctx, p, vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write([]byte("data"))
	require.NoError(t, err)
	f.CrashAfter(0)
	require.ErrorIs(t, out.Close(), chaos.ErrInjected)
	f.Revive()
	ok, err := vfs.Exists(ctx, inner, p)
	require.NoError(t, err)
	assert.False(t, ok, "a stream whose Close failed before the store is aborted")
}

// TestFaultFSRecursiveDeleteCrashesHalfWay checks that a recursive delete is
// one request per entry, so that a crash leaves part of the tree.
func TestFaultFSRecursiveDeleteCrashesHalfWay(t *testing.T) {
	ctx := t.Context()
	inner := memfs.New()
	for _, name := range []string{"/t/a", "/t/b", "/t/c"} {
		require.NoError(t, vfs.WriteFile(ctx, inner, vfs.MustPath(name), []byte(name), vfs.NoOverwrite))
	}
	f := chaos.NewFaultFS(inner)
	f.CrashAfter(2) // the walk and one delete
	require.ErrorIs(t, f.Delete(ctx, vfs.MustPath("/t"), true), chaos.ErrInjected)
	left, err := inner.List(ctx, vfs.MustPath("/t"))
	require.NoError(t, err)
	assert.Len(t, left, 2, "one file deleted before the crash")
}

// renameOverwrites is a file system whose Rename replaces the destination:
// the bug RenameRace must catch.
type renameOverwrites struct{ vfs.FileSystem }

func (r renameOverwrites) Rename(ctx context.Context, src, dst vfs.Path) error {
	data, err := vfs.ReadFile(ctx, r.FileSystem, src)
	if err != nil {
		return err
	}
	if err := vfs.WriteFile(ctx, r.FileSystem, dst, data, vfs.Overwrite); err != nil {
		return err
	}
	return r.FileSystem.Delete(ctx, src, false)
}

func TestRenameRace(t *testing.T) {
	ctx := t.Context()
	fsys := memfs.New()
	r, err := chaos.RenameRace(ctx, fsys, fsys, vfs.MustPath("/race"), 8)
	require.NoError(t, err)
	assert.Equal(t, 1, r.Succeeded)
	assert.Equal(t, 1, r.Moved)
	assert.Zero(t, r.Lost)
	assert.GreaterOrEqual(t, r.Winner, 0)
	assert.False(t, r.DoubleWin())
	ok, err := vfs.Exists(ctx, fsys, vfs.MustPath("/race"))
	require.NoError(t, err)
	assert.False(t, ok, "the race directory is removed")

	r, err = chaos.RenameRace(ctx, renameOverwrites{fsys}, fsys, vfs.MustPath("/race"), 8)
	require.NoError(t, err)
	assert.True(t, r.DoubleWin(), "every overwriting rename wins")
	assert.Equal(t, 7, r.Lost, "and all but the last source are lost")
}

func TestAttemptsCountsRetries(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	a := &chaos.Attempts{}
	c := &http.Client{Transport: a}
	for _, h := range []string{"attempt=1; max=10", "attempt=3; max=10", "", "attempt=2; max=5"} {
		req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
		require.NoError(t, err)
		if h != "" {
			req.Header.Set("amz-sdk-request", h)
		}
		resp, err := c.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
	}
	requests, retries, most, limit := a.Counts()
	assert.Equal(t, 4, requests)
	assert.Equal(t, 2, retries)
	assert.Equal(t, 3, most)
	assert.Equal(t, 10, limit)
}

func TestTable(t *testing.T) {
	a, b := chaos.NewSummary("memory"), chaos.NewSummary("s3")
	a.Add("lost", 0)
	a.Add("cycles", 100)
	b.Add("cycles", 7)
	b.Add("slowdowns", 12)
	lines := strings.Split(strings.TrimSpace(chaos.Table(a, b)), "\n")
	require.Len(t, lines, 4)
	assert.Equal(t, []string{"count", "memory", "s3"}, strings.Fields(lines[0]))
	assert.Equal(t, []string{"cycles", "100", "7"}, strings.Fields(lines[1]))
	assert.Equal(t, []string{"lost", "0", "-"}, strings.Fields(lines[2]))
	assert.Equal(t, []string{"slowdowns", "-", "12"}, strings.Fields(lines[3]))
}

// TestJobVerifyCatchesDamage writes checkpoints, then damages a state file and
// a canary: Verify and CheckCanaries must say so.
func TestJobVerifyCatchesDamage(t *testing.T) {
	ctx := t.Context()
	inner := memfs.New()
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register(memfs.Scheme, memfs.Factory))
	j := &chaos.Job{Base: vfs.MustPath("memory://" + inner.URI().Host + "/ckpt"), Seed: 7, Registry: reg, Streams: 3, Threshold: 10}
	require.NoError(t, j.WriteCanaries(ctx, reg))
	require.NoError(t, j.WriteCrafted(ctx, reg))
	for c := range 5 {
		r := j.Cycle(ctx, c, nil)
		require.NoError(t, r.Err)
		require.True(t, r.Finalized)
	}
	v, err := j.Verify(ctx, reg)
	require.NoError(t, err)
	assert.Equal(t, []int64{8, 10}, v.Listed[len(v.Listed)-2:], "the newest are kept")
	assert.Len(t, v.Listed, j.Retain)
	assert.Empty(t, v.Broken)
	damaged, _ := j.CheckCanaries(ctx, reg)
	assert.Zero(t, damaged, "retention discarded the crafted checkpoint and left the canaries")

	// Damage one state file of the newest checkpoint.
	var victim vfs.Path
	require.NoError(t, vfs.Walk(ctx, inner, j.Dir().Join("chk-10"), func(st vfs.FileStatus, err error) error {
		if err == nil && !st.IsDir && st.Path.Name() != "_metadata" {
			victim = st.Path
		}
		return err
	}))
	require.False(t, victim.IsZero(), "chk-10 has a state file")
	data, err := vfs.ReadFile(ctx, inner, victim)
	require.NoError(t, err)
	data[len(data)/2] ^= 1
	require.NoError(t, vfs.WriteFile(ctx, inner, victim, data, vfs.Overwrite))
	require.NoError(t, inner.Delete(ctx, j.Canaries()[1], false))

	v, err = j.Verify(ctx, reg)
	require.NoError(t, err)
	assert.Equal(t, []int64{6, 10}, v.Broken, "chk-10's state is damaged; chk-6 is crafted and names the deleted canary")
	damaged, errs := j.CheckCanaries(ctx, reg)
	assert.Equal(t, 1, damaged)
	require.Len(t, errs, 1)
	assert.True(t, errors.Is(errs[0], fs.ErrNotExist), "%v", errs[0])
}

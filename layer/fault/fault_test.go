package fault_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/fault"
	"github.com/vfskit/vfskit/layer/internal/layertest"
	"github.com/vfskit/vfskit/vfs"
)

var errBoom = errors.New("boom")

func TestConformance(t *testing.T) {
	layertest.Conformance(t, func(t *testing.T, inner vfs.FileSystem, dir vfs.Path) (vfs.FileSystem, vfs.Path) {
		// Rules that never match: the layer must change nothing.
		f, err := fault.New(inner, 1, fault.Rule{Path: "/nowhere/*", Err: errBoom}, fault.Rule{Ops: []fault.Op{fault.Read}, Path: "/nowhere", ShortRead: true})
		require.NoError(t, err)
		return f, dir
	})
}

func newFault(t *testing.T, seed uint64, rules ...fault.Rule) (*fault.FS, *layertest.Spy) {
	t.Helper()
	spy := layertest.NewSpy(memfs.New())
	f, err := fault.New(spy, seed, rules...)
	require.NoError(t, err)
	for _, p := range []string{"/chk-1/_metadata", "/chk-1/state", "/data"} {
		require.NoError(t, vfs.WriteFile(t.Context(), spy, vfs.MustPath(p), []byte("content of "+p), vfs.NoOverwrite))
	}
	return f, spy
}

func TestByOperationAndPath(t *testing.T) {
	ctx := t.Context()
	f, _ := newFault(t, 1, fault.Rule{Ops: []fault.Op{fault.Open}, Path: "/chk-*/_metadata", Err: io.ErrUnexpectedEOF})
	_, err := f.Open(ctx, vfs.MustPath("/chk-1/_metadata"))
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.ErrorIs(t, err, fault.ErrInjected)
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "open", pe.Op)
	_, err = vfs.ReadFile(ctx, f, vfs.MustPath("/chk-1/_metadata"))
	require.ErrorIs(t, err, fault.ErrInjected, "ReadFile goes through the faulty Open")
	data, err := vfs.ReadFile(ctx, f, vfs.MustPath("/chk-1/state"))
	require.NoError(t, err)
	require.Equal(t, "content of /chk-1/state", string(data))
	_, err = f.Stat(ctx, vfs.MustPath("/chk-1/_metadata"))
	require.NoError(t, err, "only Open is faulty")
	require.Equal(t, 2, f.Fired(0))
}

func TestAfterAndTimes(t *testing.T) {
	ctx := t.Context()
	f, _ := newFault(t, 1, fault.Rule{Ops: []fault.Op{fault.Stat}, After: 2, Times: 1, Err: errBoom})
	var got []bool
	for range 5 {
		_, err := f.Stat(ctx, vfs.MustPath("/data"))
		got = append(got, err != nil)
	}
	require.Equal(t, []bool{false, false, true, false, false}, got)
	require.Equal(t, 1, f.Fired(0))
}

func TestSeedReproduces(t *testing.T) {
	ctx := t.Context()
	run := func(seed uint64) []bool {
		f, _ := newFault(t, seed, fault.Rule{Ops: []fault.Op{fault.Stat}, Probability: 0.5, Err: errBoom})
		var got []bool
		for range 200 {
			_, err := f.Stat(ctx, vfs.MustPath("/data"))
			got = append(got, err != nil)
		}
		return got
	}
	a, b, c := run(7), run(7), run(8)
	require.Equal(t, a, b, "same seed, same faults")
	require.NotEqual(t, a, c, "another seed, other faults")
	n := 0
	for _, failed := range a {
		if failed {
			n++
		}
	}
	require.InDelta(t, 100, n, 40, "about half fail")
}

func TestShortReads(t *testing.T) {
	ctx := t.Context()
	f, _ := newFault(t, 1, fault.Rule{Ops: []fault.Op{fault.Read}, ShortRead: true})
	in, err := f.Open(ctx, vfs.MustPath("/data"))
	require.NoError(t, err)
	buf := make([]byte, 100)
	n, err := in.Read(buf)
	require.NoError(t, err)
	require.LessOrEqual(t, n, 50)
	require.Positive(t, n)
	rest, err := io.ReadAll(in)
	require.NoError(t, err)
	require.Equal(t, "content of /data", string(buf[:n])+string(rest))
	require.NoError(t, in.Close())
	data, err := vfs.ReadFile(ctx, f, vfs.MustPath("/data"))
	require.NoError(t, err)
	require.Equal(t, "content of /data", string(data), "readers that loop get every byte")
}

// TestFailedWritesPublishNothing: an injected failure of a write or of a
// close discards the file.
func TestFailedWritesPublishNothing(t *testing.T) {
	ctx := t.Context()
	for name, rule := range map[string]fault.Rule{
		"close":        {Ops: []fault.Op{fault.Close}, Path: "/out", Err: errBoom},
		"second write": {Ops: []fault.Op{fault.Write}, Path: "/out", After: 1, Err: errBoom},
	} {
		t.Run(name, func(t *testing.T) {
			f, spy := newFault(t, 1, rule)
			out, err := f.Create(ctx, vfs.MustPath("/out"), vfs.NoOverwrite)
			require.NoError(t, err)
			_, err = out.Write([]byte("first"))
			require.NoError(t, err)
			_, werr := out.Write([]byte("second"))
			cerr := out.Close()
			require.ErrorIs(t, errors.Join(werr, cerr), errBoom)
			require.Error(t, cerr, "Close must not report success")
			ok, err := vfs.Exists(ctx, spy, vfs.MustPath("/out"))
			require.NoError(t, err)
			require.False(t, ok, "nothing published")
			require.ErrorIs(t, vfs.WriteFile(ctx, f, vfs.MustPath("/out"), []byte("x"), vfs.NoOverwrite), errBoom)
			ok, err = vfs.Exists(ctx, spy, vfs.MustPath("/out"))
			require.NoError(t, err)
			require.False(t, ok, "nothing published by WriteFile")
		})
	}
}

func TestLatencyHonoursContext(t *testing.T) {
	f, _ := newFault(t, 1, fault.Rule{Ops: []fault.Op{fault.Stat}, Latency: time.Hour})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := f.Stat(ctx, vfs.MustPath("/data"))
	require.ErrorIs(t, err, context.Canceled)
}

func TestFastPathWhenNoRuleMatches(t *testing.T) {
	ctx := t.Context()
	f, spy := newFault(t, 1, fault.Rule{Path: "/elsewhere/*", Err: errBoom})
	_, err := vfs.ReadFile(ctx, f, vfs.MustPath("/data"))
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(ctx, f, vfs.MustPath("/new"), []byte("x"), vfs.NoOverwrite))
	_, err = vfs.CopyWithMode(ctx, f, vfs.MustPath("/copy"), f, vfs.MustPath("/data"), vfs.NoOverwrite)
	require.NoError(t, err)
	require.Equal(t, 1, spy.Calls("ReadFile"))
	require.Equal(t, 3+1, spy.Calls("WriteFile"), "the setup's three, and ours")
	require.Equal(t, 1, spy.Calls("CopyFile"))
	require.Zero(t, spy.Calls("Open")+spy.Calls("Create"))
}

func TestInvalidRules(t *testing.T) {
	for i, r := range []fault.Rule{{Path: "["}, {Probability: 1.5}, {After: -1}, {Latency: -time.Second}} {
		_, err := fault.New(memfs.New(), 1, r)
		require.ErrorContains(t, err, "rule 0", fmt.Sprint(i))
	}
}

// TestCreateRulesCoverCreateUnsynced: a rule for Create fails vfs.DirSyncer's
// CreateUnsynced too, and its stream's writes follow the Write rules.
func TestCreateRulesCoverCreateUnsynced(t *testing.T) {
	ctx := t.Context()
	f, spy := newFault(t, 1,
		fault.Rule{Ops: []fault.Op{fault.Create}, Path: "/a", Err: errBoom},
		fault.Rule{Ops: []fault.Op{fault.Write}, Path: "/b", Err: errBoom})
	_, err := f.CreateUnsynced(ctx, vfs.MustPath("/a"), vfs.NoOverwrite)
	require.ErrorIs(t, err, errBoom)
	require.Zero(t, spy.Calls("CreateUnsynced"))
	out, err := f.CreateUnsynced(ctx, vfs.MustPath("/b"), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write([]byte("x"))
	require.ErrorIs(t, err, errBoom)
	require.Error(t, out.Close(), "a failed write publishes nothing")
	ok, err := vfs.Exists(ctx, f, vfs.MustPath("/b"))
	require.NoError(t, err)
	require.False(t, ok)
}

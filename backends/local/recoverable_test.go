package local_test

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/backends/internal/rwtest"
	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/vfs"
)

const recoverableChildEnv = "VFSKIT_TEST_RECOVERABLE_CHILD"

// chunk returns n bytes that depend on seed.
func chunk(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestRecoverableChild writes two files through the recoverable writer into
// the directory in recoverableChildEnv: a.bin persisted after 200 KiB and then
// written on (100 KiB more, never persisted), b.bin closed for commit but not
// committed. It prints both tokens and waits to be killed. It runs only as
// TestRecoverableAfterSIGKILL's child.
func TestRecoverableChild(t *testing.T) {
	dir := os.Getenv(recoverableChildEnv)
	if dir == "" {
		t.Skip("runs only as the child process of TestRecoverableAfterSIGKILL")
	}
	ctx := context.Background()
	w, err := vfs.NewRecoverableWriter(local.New())
	require.NoError(t, err)
	a, err := w.Open(ctx, vfs.MustPath(filepath.Join(dir, "a.bin")))
	require.NoError(t, err)
	_, err = a.Write(chunk(1, 200<<10))
	require.NoError(t, err)
	tokA, err := a.Persist(ctx)
	require.NoError(t, err)
	_, err = a.Write(chunk(2, 100<<10)) // larger than the buffer: it reaches the file
	require.NoError(t, err)
	b, err := w.Open(ctx, vfs.MustPath(filepath.Join(dir, "b.bin")))
	require.NoError(t, err)
	_, err = b.Write(chunk(3, 300<<10))
	require.NoError(t, err)
	c, err := b.CloseForCommit(ctx)
	require.NoError(t, err)
	fmt.Printf("\nA %x\nB %x\nready\n", []byte(tokA), []byte(c.Recoverable()))
	time.Sleep(time.Hour) // killed long before
}

// TestRecoverableAfterSIGKILL kills a writing process with SIGKILL and
// continues its files in this one, from their tokens: the persisted file is
// recovered at exactly its persisted bytes (the 100 KiB written after the
// token are gone) and committed, the file closed for commit is committed by
// CommitAfterRecovery (twice: the second finds it done), byte for byte. Old
// in-progress files survive vfs.CleanTemp, and nothing is left at the end.
func TestRecoverableAfterSIGKILL(t *testing.T) {
	if os.Getenv(recoverableChildEnv) != "" {
		t.Skip("this is the child process")
	}
	ctx := context.Background()
	fsys := local.New()
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestRecoverableChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), recoverableChildEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	toks := map[string][]byte{}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && lines.Text() != "ready" {
		if name, hx, ok := strings.Cut(lines.Text(), " "); ok {
			tok, err := hex.DecodeString(hx)
			require.NoError(t, err)
			toks[name] = tok
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	require.Error(t, cmd.Wait(), "the writer was killed")
	require.Len(t, toks, 2, "the child's tokens")

	// Two in-progress files, nothing published; a's holds the unpersisted
	// bytes too.
	parts, err := filepath.Glob(filepath.Join(dir, aferofs.InProgressPrefix+"*"))
	require.NoError(t, err)
	require.Len(t, parts, 2)
	require.NoFileExists(t, filepath.Join(dir, "a.bin"))
	require.NoFileExists(t, filepath.Join(dir, "b.bin"))
	for _, p := range parts {
		if strings.HasSuffix(p, "-a.bin") {
			fi, err := os.Stat(p)
			require.NoError(t, err)
			require.Equal(t, int64(300<<10), fi.Size())
		}
	}

	// However old, in-progress files are not temporary files.
	old := time.Now().Add(-30 * 24 * time.Hour)
	for _, p := range parts {
		require.NoError(t, os.Chtimes(p, old, old))
	}
	removed, err := vfs.CleanTemp(ctx, fsys, vfs.MustPath(dir), 0)
	require.NoError(t, err)
	require.Empty(t, removed, "CleanTemp removed in-progress files")

	w, err := vfs.NewRecoverableWriter(fsys)
	require.NoError(t, err)
	a, err := w.Recover(ctx, toks["A"])
	require.NoError(t, err)
	require.Equal(t, int64(200<<10), a.Pos())
	_, err = a.Write(chunk(4, 50<<10))
	require.NoError(t, err)
	c, err := a.CloseForCommit(ctx)
	require.NoError(t, err)
	require.NoError(t, c.Commit(ctx))
	got, err := os.ReadFile(filepath.Join(dir, "a.bin"))
	require.NoError(t, err)
	require.Equal(t, slices.Concat(chunk(1, 200<<10), chunk(4, 50<<10)), got, "a.bin")

	for i := range 2 {
		c, err := w.RecoverForCommit(ctx, toks["B"])
		require.NoError(t, err)
		require.NoError(t, c.CommitAfterRecovery(ctx), "CommitAfterRecovery #%d", i+1)
		got, err := os.ReadFile(filepath.Join(dir, "b.bin"))
		require.NoError(t, err)
		require.Equal(t, chunk(3, 300<<10), got, "b.bin")
	}
	require.NoError(t, w.CleanupRecoverableState(ctx, toks["A"]))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Equal(t, []string{"a.bin", "b.bin"}, names, "left in the directory")
}

// TestInProgressNamesAreNotTempNames: Create's temporary names and the
// recoverable writer's in-progress names never match each other's rule.
func TestInProgressNamesAreNotTempNames(t *testing.T) {
	ctx := t.Context()
	fsys := local.New()
	dir := vfs.MustPath(t.TempDir())
	w, err := vfs.NewRecoverableWriter(fsys)
	require.NoError(t, err)
	// Names that look like a temporary file's as far as possible.
	for _, name := range []string{"0", "zzzzzzzzzzzzz", "x"} {
		out, err := w.Open(ctx, dir.Join(name))
		require.NoError(t, err)
		_, err = out.Persist(ctx)
		require.NoError(t, err)
		require.NoError(t, out.Close())
	}
	found, err := vfs.FindTemp(ctx, fsys, dir, 0)
	require.NoError(t, err)
	require.Empty(t, found)
	entries, err := os.ReadDir(dir.Path())
	require.NoError(t, err)
	require.Len(t, entries, 3, "the in-progress files are there")
	for _, e := range entries {
		require.True(t, aferofs.IsInProgressName(e.Name()), e.Name())
	}
}

// TestInProgressFilesAreHiddenFromListings: a persisted stream's in-progress
// file is not listed; a user's .vfskit-inprogress-notes.txt is.
func TestInProgressFilesAreHiddenFromListings(t *testing.T) {
	dir := vfs.MustPath(t.TempDir())
	rwtest.RequireTempsHidden(t, local.New(), dir, aferofs.InProgressPrefix+"notes.txt", aferofs.IsInProgressName, func() []string {
		entries, err := os.ReadDir(dir.Path())
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	})
}

// TestRecoverableConcurrentCommitAfterRecovery runs CommitAfterRecovery of one
// token on several file systems at once (as several processes restored from
// one checkpoint would): every one returns nil and the file is committed
// once, whole. A regression test: the committer whose rename found the
// in-progress file already moved failed with "no such file or directory".
func TestRecoverableConcurrentCommitAfterRecovery(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const rounds, committers = 40, 4
	for round := range rounds {
		p := vfs.MustPath(filepath.Join(dir, fmt.Sprintf("part-%d", round)))
		want := chunk(uint64(round), 64<<10+round)
		w, err := vfs.NewRecoverableWriter(local.New())
		require.NoError(t, err)
		out, err := w.Open(ctx, p)
		require.NoError(t, err)
		_, err = out.Write(want)
		require.NoError(t, err)
		c, err := out.CloseForCommit(ctx)
		require.NoError(t, err)
		tok := c.Recoverable()

		errs := make(chan error, committers)
		start := make(chan struct{})
		for range committers {
			go func() {
				w, err := vfs.NewRecoverableWriter(local.New())
				if err == nil {
					var rc vfs.Committer
					if rc, err = w.RecoverForCommit(ctx, tok); err == nil {
						<-start
						err = rc.CommitAfterRecovery(ctx)
					}
				}
				errs <- err
			}()
		}
		close(start)
		for i := range committers {
			require.NoError(t, <-errs, "round %d: CommitAfterRecovery %d of %d racing on one token", round, i+1, committers)
		}
		got, err := os.ReadFile(p.Path())
		require.NoError(t, err)
		require.Equal(t, want, got, "round %d: the committed file", round)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, rounds, "files in %s: the committed parts and no in-progress file", dir)
}

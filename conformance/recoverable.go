package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// recoverableCases check vfs.RecoverableWriter (Flink's RecoverableWriter) on
// file systems that have one: nothing is visible before Commit, Commit
// publishes the whole file atomically and replaces an existing one, Recover
// continues from exactly the persisted bytes, CommitAfterRecovery is
// idempotent and never rewrites a file, bad tokens are refused with
// fs.ErrInvalid, and nothing is left behind after commit and cleanup. On a
// file system without a writer (vfs.NewRecoverableWriter fails with
// errors.ErrUnsupported) every case is skipped.
var recoverableCases = []testCase{
	{name: "InvisibleUntilCommit", run: func(t *testing.T, e *env) {
		w := e.recoverableWriter(t)
		p := e.path("file")
		want := pattern(31, 0, 100_000)
		out := e.openRecoverable(t, w, p)
		e.writeAll(t, out, want[:60_000])
		e.requireInvisible(t, p)
		e.persist(t, out)
		e.requireInvisible(t, p)
		e.writeAll(t, out, want[60_000:])
		e.persist(t, out)
		c := e.closeForCommit(t, out)
		e.requireInvisible(t, p)
		require.NotContains(t, e.namesOfEmpty(t, e.dir), "file", "List(%s) before Commit", e.dir)
		require.NoError(t, c.Commit(e.ctx), "Commit of %s", p)
		e.requireContent(t, p, want)
	}},
	{name: "EmptyFile", run: func(t *testing.T, e *env) {
		w := e.recoverableWriter(t)
		p := e.path("empty")
		c := e.closeForCommit(t, e.openRecoverable(t, w, p))
		require.NoError(t, c.Commit(e.ctx), "Commit of the empty file %s", p)
		e.requireContent(t, p, []byte{})
	}},
	{name: "CommitReplaces", run: func(t *testing.T, e *env) {
		w := e.recoverableWriter(t)
		p := e.path("file")
		old, want := pattern(32, 0, 50_000), pattern(33, 0, 80_000)
		e.writeMode(t, p, old, vfs.NoOverwrite)
		out := e.openRecoverable(t, w, p)
		e.writeAll(t, out, want)
		e.persist(t, out)
		c := e.closeForCommit(t, out)
		e.requireContent(t, p, old)
		// Readers during the commit see the old file or the new one, whole.
		var wg sync.WaitGroup
		done := make(chan struct{})
		var torn error
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				select {
				case <-done:
					return
				default:
				}
				got, err := vfs.ReadFile(e.ctx, e.fsys, p)
				if err == nil && !bytes.Equal(got, old) && !bytes.Equal(got, want) {
					torn = fmt.Errorf("a reader during Commit got %d bytes, neither the old file (%d) nor the new (%d)", len(got), len(old), len(want))
					return
				}
			}
		}()
		err := c.Commit(e.ctx)
		close(done)
		wg.Wait()
		require.NoError(t, err, "Commit of %s onto an existing file", p)
		require.NoError(t, torn)
		e.requireContent(t, p, want)
	}},
	{name: "RecoverFromToken", run: func(t *testing.T, e *env) {
		w := e.recoverableWriter(t)
		p := e.path("file")
		a, b, c, d := pattern(34, 0, 40_000), pattern(35, 0, 30_000), pattern(36, 0, 20_000), pattern(37, 0, 25_000)
		out := e.openRecoverable(t, w, p)
		e.writeAll(t, out, a)
		tokA := e.persist(t, out)
		e.writeAll(t, out, b)
		tokAB := e.persist(t, out)
		e.writeAll(t, out, c) // never persisted
		require.NoError(t, out.Close(), "Close (giving the stream up) of %s", p)
		e.requireInvisible(t, p)

		// A new writer, as in another process, continues from the later token...
		in := e.recover(t, e.recoverableWriter(t), tokAB, int64(len(a)+len(b)))
		e.writeAll(t, in, d)
		require.NoError(t, in.Close(), "Close (giving the recovered stream up) of %s", p)
		// ...and from the earlier one, where everything after it is gone.
		in = e.recover(t, e.recoverableWriter(t), tokA, int64(len(a)))
		e.writeAll(t, in, d)
		tokAD := e.persist(t, in)
		cm := e.closeForCommit(t, in)
		e.requireInvisible(t, p)
		require.NoError(t, cm.Commit(e.ctx), "Commit of %s after Recover", p)
		e.requireContent(t, p, cat(a, d))
		e.cleanup(t, w, tokA, tokAB, tokAD)
		e.requireContent(t, p, cat(a, d))
	}},
	{name: "RecoverLarge", run: func(t *testing.T, e *env) {
		// Sizes past the parts of multipart uploads (5 MiB on S3).
		w := e.recoverableWriter(t)
		p := e.path("large")
		l := int(e.h.LargeFileSize)
		first, lost, rest := pattern(38, 0, l*3/8), pattern(39, 0, l/4), pattern(40, 0, l*3/8+1)
		out := e.openRecoverable(t, w, p)
		e.writeChunks(t, out, first)
		tok := e.persist(t, out)
		e.writeChunks(t, out, lost)
		e.persist(t, out)
		require.NoError(t, out.Close(), "Close (giving the stream up) of %s", p)
		in := e.recover(t, e.recoverableWriter(t), tok, int64(len(first)))
		e.writeChunks(t, in, rest)
		cm := e.closeForCommit(t, in)
		require.NoError(t, cm.Commit(e.ctx), "Commit of %s", p)
		got, err := vfs.ReadFile(e.ctx, e.fsys, p)
		require.NoError(t, err, "ReadFile(%s)", p)
		requireSameBytes(t, cat(first, rest), got, "%s after Recover and Commit", p)
	}},
	{name: "CleanupKeepsLaterTokens", run: func(t *testing.T, e *env) {
		w := e.recoverableWriter(t)
		p := e.path("file")
		a, b, c := pattern(41, 0, 30_000), pattern(42, 0, 30_000), pattern(43, 0, 1_000)
		out := e.openRecoverable(t, w, p)
		e.writeAll(t, out, a)
		tokA := e.persist(t, out)
		e.writeAll(t, out, b)
		tokAB := e.persist(t, out)
		e.cleanup(t, w, tokA)
		e.writeAll(t, out, c)
		require.NoError(t, out.Close(), "Close (giving the stream up) of %s", p)
		in := e.recover(t, e.recoverableWriter(t), tokAB, int64(len(a)+len(b)))
		cm := e.closeForCommit(t, in)
		require.NoError(t, cm.Commit(e.ctx), "Commit of %s", p)
		e.requireContent(t, p, cat(a, b))
	}},
	{name: "CommitAfterRecovery", run: func(t *testing.T, e *env) {
		w := e.recoverableWriter(t)
		p, q := e.path("committed"), e.path("pending")
		want := pattern(44, 0, 70_000)
		// Committed before the crash: CommitAfterRecovery finds it done.
		out := e.openRecoverable(t, w, p)
		e.writeAll(t, out, want)
		c := e.closeForCommit(t, out)
		tok := c.Recoverable()
		require.NoError(t, c.Commit(e.ctx), "Commit of %s", p)
		for i := range 2 {
			rc, err := e.recoverableWriter(t).RecoverForCommit(e.ctx, tok)
			require.NoError(t, err, "RecoverForCommit of the committed %s", p)
			require.NoError(t, rc.CommitAfterRecovery(e.ctx), "CommitAfterRecovery #%d of the committed %s", i+1, p)
			e.requireContent(t, p, want)
		}
		// Not committed before the crash: CommitAfterRecovery commits, once.
		out = e.openRecoverable(t, w, q)
		e.writeAll(t, out, want)
		tok = e.closeForCommit(t, out).Recoverable()
		e.requireInvisible(t, q)
		for i := range 2 {
			rc, err := e.recoverableWriter(t).RecoverForCommit(e.ctx, tok)
			require.NoError(t, err, "RecoverForCommit of %s", q)
			require.NoError(t, rc.CommitAfterRecovery(e.ctx), "CommitAfterRecovery #%d of %s", i+1, q)
			e.requireContent(t, q, want)
		}
		e.requireNoLeftovers(t, "committed", "pending")
	}},
	{name: "CommitAfterRecoveryNeverRewrites", run: func(t *testing.T, e *env) {
		w := e.recoverableWriter(t)
		p := e.path("file")
		out := e.openRecoverable(t, w, p)
		e.writeAll(t, out, pattern(45, 0, 20_000))
		c := e.closeForCommit(t, out)
		tok := c.Recoverable()
		require.NoError(t, c.Commit(e.ctx), "Commit of %s", p)
		// What happens to the file after its commit is not the writer's to undo:
		// CommitAfterRecovery may succeed or fail, but must not write it again.
		newer := []byte("written after the commit")
		e.writeMode(t, p, newer, vfs.Overwrite)
		rc, err := e.recoverableWriter(t).RecoverForCommit(e.ctx, tok)
		require.NoError(t, err, "RecoverForCommit of %s", p)
		_ = rc.CommitAfterRecovery(e.ctx)
		e.requireContent(t, p, newer)
		require.NoError(t, e.fsys.Delete(e.ctx, p, false), "Delete(%s)", p)
		_ = rc.CommitAfterRecovery(e.ctx)
		e.requireMissing(t, p)
	}},
	{name: "CommittedOnceByProof", run: func(t *testing.T, e *env) {
		// A committed stream (an empty one too) never writes its target
		// again: a repeated Commit or a CommitAfterRecovery is nil while the
		// target holds what the commit published, and otherwise fails with
		// fs.ErrNotExist and writes nothing, whether the target was replaced
		// or deleted since.
		e.write(t, e.path("keep"), []byte("keeps the directory on an object store"))
		for _, size := range []int{0, 20_000} {
			t.Run(fmt.Sprintf("%dBytes", size), func(t *testing.T) {
				w := e.recoverableWriter(t)
				p := e.path(fmt.Sprintf("file-%d", size))
				want := pattern(49, 0, size)
				out := e.openRecoverable(t, w, p)
				e.writeAll(t, out, want)
				c := e.closeForCommit(t, out)
				tok := c.Recoverable()
				require.NoError(t, c.Commit(e.ctx), "Commit of %s", p)
				require.NoError(t, c.Commit(e.ctx), "a repeated Commit of %s, whose target holds what the commit published", p)
				rc, err := e.recoverableWriter(t).RecoverForCommit(e.ctx, tok)
				require.NoError(t, err, "RecoverForCommit of the committed %s", p)
				require.NoError(t, rc.CommitAfterRecovery(e.ctx), "CommitAfterRecovery of the committed %s", p)
				e.requireContent(t, p, want)

				newer := []byte("written after the commit")
				e.writeMode(t, p, newer, vfs.Overwrite)
				require.ErrorIs(t, c.Commit(e.ctx), fs.ErrNotExist, "a repeated Commit of %s after another writer replaced it", p)
				require.ErrorIs(t, rc.CommitAfterRecovery(e.ctx), fs.ErrNotExist, "CommitAfterRecovery of %s after another writer replaced it", p)
				e.requireContent(t, p, newer)

				require.NoError(t, e.fsys.Delete(e.ctx, p, false), "Delete(%s)", p)
				require.ErrorIs(t, c.Commit(e.ctx), fs.ErrNotExist, "a repeated Commit of %s after its consumer deleted it", p)
				require.ErrorIs(t, rc.CommitAfterRecovery(e.ctx), fs.ErrNotExist, "CommitAfterRecovery of %s after its consumer deleted it", p)
				e.requireMissing(t, p)
			})
		}
		e.requireNoLeftovers(t, "keep")
	}},
	{name: "RecoveredStreamIsItsOwn", run: func(t *testing.T, e *env) {
		// A stream recovered from a token of a stream that committed since
		// (one persisted at 0 bytes too) is refused, or is a stream of its
		// own: its commit publishes its bytes, or fails and leaves the target
		// as it was; it never returns nil leaving the first stream's bytes.
		for _, at := range []int{0, 1_000} {
			t.Run(fmt.Sprintf("TokenAt%dBytes", at), func(t *testing.T) {
				w := e.recoverableWriter(t)
				p := e.path(fmt.Sprintf("file-%d", at))
				first, second := pattern(50, 0, at+5_000), pattern(51, 0, 7_000)
				out := e.openRecoverable(t, w, p)
				e.writeAll(t, out, first[:at])
				tok := e.persist(t, out)
				e.writeAll(t, out, first[at:])
				c := e.closeForCommit(t, out)
				require.NoError(t, c.Commit(e.ctx), "Commit of %s", p)
				e.requireContent(t, p, first)

				in, err := e.recoverableWriter(t).Recover(e.ctx, tok)
				if err != nil {
					e.requireContent(t, p, first)
					return
				}
				require.Equal(t, int64(at), in.Pos(), "Pos of the stream recovered from a token persisted at %d bytes", at)
				_, err = in.Write(second)
				var c2 vfs.Committer
				if err == nil {
					c2, err = in.CloseForCommit(e.ctx)
				} else {
					_ = in.Close()
				}
				if err == nil {
					err = c2.Commit(e.ctx)
				}
				if err != nil {
					e.requireContent(t, p, first)
					return
				}
				e.requireContent(t, p, cat(first[:at], second))
			})
		}
	}},
	{name: "BadTokens", run: func(t *testing.T, e *env) {
		w := e.recoverableWriter(t)
		p := e.path("file")
		out := e.openRecoverable(t, w, p)
		e.writeAll(t, out, pattern(46, 0, 10_000))
		resume := e.persist(t, out)
		commit := e.closeForCommit(t, out).Recoverable()
		for name, bad := range badTokens(resume) {
			e.requireResumeRefused(t, w, vfs.ResumeRecoverable(bad), "a resume token "+name)
		}
		for name, bad := range badTokens(commit) {
			e.requireCommitRefused(t, w, vfs.CommitRecoverable(bad), "a commit token "+name)
		}
		e.requireResumeRefused(t, w, vfs.ResumeRecoverable(commit), "a commit token given as a resume token")
		e.requireCommitRefused(t, w, vfs.CommitRecoverable(resume), "a resume token given as a commit token")
		e.requireInvisible(t, p)
		t.Run("OtherFileSystem", func(t *testing.T) {
			other, ow := e.otherRecoverable(t)
			out := e.openRecoverable(t, ow, other)
			e.writeAll(t, out, []byte("of another file system"))
			resume := e.persist(t, out)
			commit := e.closeForCommit(t, out).Recoverable()
			e.requireResumeRefused(t, w, resume, "a resume token of another file system")
			e.requireCommitRefused(t, w, commit, "a commit token of another file system")
		})
	}},
	{name: "NoLeftovers", run: func(t *testing.T, e *env) {
		w := e.recoverableWriter(t)
		p := e.path("sub", "file")
		a, b := pattern(47, 0, 50_000), pattern(48, 0, 50_000)
		out := e.openRecoverable(t, w, p)
		e.writeAll(t, out, a)
		tokA := e.persist(t, out)
		e.writeAll(t, out, b[:10])
		require.NoError(t, out.Close(), "Close (giving the stream up) of %s", p)
		in := e.recover(t, e.recoverableWriter(t), tokA, int64(len(a)))
		e.writeAll(t, in, b)
		tokAB := e.persist(t, in)
		c := e.closeForCommit(t, in)
		require.NoError(t, c.Commit(e.ctx), "Commit of %s", p)
		e.cleanup(t, w, tokA, tokAB)
		e.requireContent(t, p, cat(a, b))
		e.requireNoLeftovers(t, "sub/file")
	}},
}

// recoverableWriter returns the file system's writer, or skips the case when
// it has none.
func (e *env) recoverableWriter(t *testing.T) vfs.RecoverableWriter {
	t.Helper()
	w, err := vfs.NewRecoverableWriter(e.fsys)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("the file system has no recoverable writer: %v", err)
	}
	require.NoError(t, err, "vfs.NewRecoverableWriter")
	require.NotNil(t, w, "vfs.NewRecoverableWriter returned a nil writer")
	return w
}

func (e *env) openRecoverable(t *testing.T, w vfs.RecoverableWriter, p vfs.Path) vfs.RecoverableOutputStream {
	t.Helper()
	out, err := w.Open(e.ctx, p)
	require.NoError(t, err, "RecoverableWriter.Open(%s)", p)
	require.Equal(t, int64(0), out.Pos(), "Pos of a new recoverable stream to %s", p)
	return out
}

// writeAll writes data in one Write and checks Pos.
func (e *env) writeAll(t *testing.T, out vfs.RecoverableOutputStream, data []byte) {
	t.Helper()
	pos := out.Pos()
	n, err := out.Write(data)
	require.NoError(t, err, "Write of %d bytes to a recoverable stream", len(data))
	require.Equal(t, len(data), n, "Write to a recoverable stream: short write")
	require.Equal(t, pos+int64(len(data)), out.Pos(), "Pos after writing %d bytes at %d", len(data), pos)
}

// writeChunks writes data in chunks of 64 KiB.
func (e *env) writeChunks(t *testing.T, out vfs.RecoverableOutputStream, data []byte) {
	t.Helper()
	for len(data) > 0 {
		n := min(len(data), 64<<10)
		e.writeAll(t, out, data[:n])
		data = data[n:]
	}
}

func (e *env) persist(t *testing.T, out vfs.RecoverableOutputStream) vfs.ResumeRecoverable {
	t.Helper()
	tok, err := out.Persist(e.ctx)
	require.NoError(t, err, "Persist at %d bytes", out.Pos())
	require.NotEmpty(t, tok, "Persist returned an empty token")
	return tok
}

func (e *env) closeForCommit(t *testing.T, out vfs.RecoverableOutputStream) vfs.Committer {
	t.Helper()
	c, err := out.CloseForCommit(e.ctx)
	require.NoError(t, err, "CloseForCommit at %d bytes", out.Pos())
	require.NotEmpty(t, c.Recoverable(), "Committer.Recoverable returned an empty token")
	return c
}

// recover continues the stream of tok and requires it to be at pos.
func (e *env) recover(t *testing.T, w vfs.RecoverableWriter, tok vfs.ResumeRecoverable, pos int64) vfs.RecoverableOutputStream {
	t.Helper()
	in, err := w.Recover(e.ctx, tok)
	require.NoError(t, err, "Recover of a token persisted at %d bytes", pos)
	require.Equal(t, pos, in.Pos(), "Pos of the stream recovered from a token persisted at %d bytes", pos)
	return in
}

func (e *env) cleanup(t *testing.T, w vfs.RecoverableWriter, toks ...vfs.ResumeRecoverable) {
	t.Helper()
	for i, tok := range toks {
		require.NoError(t, w.CleanupRecoverableState(e.ctx, tok), "CleanupRecoverableState of token %d", i+1)
	}
}

// requireNoLeftovers requires that the test directory holds exactly the files
// want (relative paths) and nothing else, below it too, and that
// Harness.RecoverableLeftovers, when set, finds nothing.
func (e *env) requireNoLeftovers(t *testing.T, want ...string) {
	t.Helper()
	var got []string
	err := vfs.Walk(e.ctx, e.fsys, e.dir, func(st vfs.FileStatus, err error) error {
		if err == nil && !st.IsDir {
			got = append(got, st.Path.Path()[len(e.dir.Path())+1:])
		}
		return err
	})
	require.NoError(t, err, "Walk(%s)", e.dir)
	require.ElementsMatch(t, want, got, "files under %s after commit and cleanup: leftovers", e.dir)
	if e.h.RecoverableLeftovers != nil {
		left, err := e.h.RecoverableLeftovers(e.ctx, e.fsys, e.dir)
		require.NoError(t, err, "Harness.RecoverableLeftovers(%s)", e.dir)
		require.Empty(t, left, "Harness.RecoverableLeftovers(%s) after commit and cleanup", e.dir)
	}
}

// otherRecoverable returns a path on a file system other than the case's, and
// its writer: from a second call of Harness.New when that returns another file
// system, otherwise from Harness.OtherFileSystem; it skips when neither can.
func (e *env) otherRecoverable(t *testing.T) (vfs.Path, vfs.RecoverableWriter) {
	t.Helper()
	fsys, dir := e.h.New(t)
	if fsys.URI().String() == e.fsys.URI().String() {
		if e.h.OtherFileSystem == nil {
			t.Skip("Harness.New returns one file system and Harness.OtherFileSystem is not set")
		}
		fsys, dir = e.h.OtherFileSystem(t)
		require.NotEqual(t, e.fsys.URI().String(), fsys.URI().String(), "Harness.OtherFileSystem returned the case's own file system")
	}
	w, err := vfs.NewRecoverableWriter(fsys)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("the other file system (%s) has no recoverable writer", fsys.URI())
	}
	require.NoError(t, err, "vfs.NewRecoverableWriter of the other file system")
	q, err := vfs.Qualify("conformance", fsys, dir)
	require.NoError(t, err)
	return q.Join("other"), w
}

// badTokens returns tok cut short and altered, by name.
func badTokens(tok []byte) map[string][]byte {
	flip := func(i int) []byte {
		b := bytes.Clone(tok)
		b[i] ^= 0x10
		return b
	}
	return map[string][]byte{
		"cut by one byte":           tok[:len(tok)-1],
		"cut in half":               tok[:len(tok)/2],
		"empty":                     {},
		"nil":                       nil,
		"altered in its first byte": flip(0),
		"altered in the middle":     flip(len(tok) / 2),
		"altered in its last byte":  flip(len(tok) - 1),
		"with a byte appended":      append(bytes.Clone(tok), 0),
	}
}

func (e *env) requireResumeRefused(t *testing.T, w vfs.RecoverableWriter, tok vfs.ResumeRecoverable, what string) {
	t.Helper()
	out, err := w.Recover(e.ctx, tok)
	if err == nil {
		_ = out.Close()
	}
	require.ErrorIs(t, err, fs.ErrInvalid, "Recover of %s", what)
	require.ErrorIs(t, w.CleanupRecoverableState(e.ctx, tok), fs.ErrInvalid, "CleanupRecoverableState of %s", what)
}

func (e *env) requireCommitRefused(t *testing.T, w vfs.RecoverableWriter, tok vfs.CommitRecoverable, what string) {
	t.Helper()
	c, err := w.RecoverForCommit(e.ctx, tok)
	if err == nil {
		err = c.CommitAfterRecovery(e.ctx)
	}
	require.ErrorIs(t, err, fs.ErrInvalid, "RecoverForCommit of %s (or its CommitAfterRecovery)", what)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

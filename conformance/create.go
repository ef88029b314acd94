package conformance

import (
	"context"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// createCases check write modes, visibility only after Close, and that cancelled
// and aborted writes publish nothing.
var createCases = []testCase{
	{name: "NoOverwriteExisting", run: func(t *testing.T, e *env) {
		p := e.path("file")
		e.write(t, p, []byte("original content"))
		e.createFails(t, p, vfs.NoOverwrite, fs.ErrExist)
		e.requireContent(t, p, []byte("original content"))
		require.Equal(t, []string{"file"}, e.names(t, e.dir), "List(%s) after a refused NoOverwrite", e.dir)
	}},
	{name: "OverwriteExisting", run: func(t *testing.T, e *env) {
		p := e.path("file")
		e.write(t, p, []byte("a longer original content"))
		e.writeMode(t, p, []byte("short"), vfs.Overwrite)
		e.requireContent(t, p, []byte("short"))
		require.Equal(t, []string{"file"}, e.names(t, e.dir), "List(%s) after Overwrite", e.dir)
	}},
	{name: "OverwriteMissing", run: func(t *testing.T, e *env) {
		p := e.path("file")
		e.writeMode(t, p, []byte("new"), vfs.Overwrite)
		e.requireContent(t, p, []byte("new"))
	}},
	{name: "MakesParents", run: func(t *testing.T, e *env) {
		p := e.path("a", "b", "c", "file")
		e.write(t, p, []byte("deep"))
		e.requireContent(t, p, []byte("deep"))
		require.Equal(t, []string{"a"}, e.names(t, e.dir), "List(%s)", e.dir)
		require.Equal(t, []string{"b"}, e.names(t, e.path("a")), "List(%s)", e.path("a"))
	}},
	{name: "OnDirectory", fileSystemOnly: fileNextToDir, run: func(t *testing.T, e *env) {
		d := e.path("dir")
		f := d.Join("file")
		e.write(t, f, []byte("inside"))
		for _, mode := range []vfs.WriteMode{vfs.NoOverwrite, vfs.Overwrite} {
			e.createFails(t, d, mode, vfs.ErrIsDir)
			e.requireDir(t, d)
			e.requireContent(t, f, []byte("inside"))
		}
	}},
	{name: "UnderFile", fileSystemOnly: noDirsOnFiles, run: func(t *testing.T, e *env) {
		f := e.file(t, "file")
		p := f.Join("child")
		out, err := e.fsys.Create(e.ctx, p, vfs.NoOverwrite)
		if err == nil {
			_, _ = out.Write([]byte("x"))
			err = out.Close()
		}
		requirePathError(t, err, vfs.ErrNotDir, f, "Create(%s) under a file", p)
		e.requireContent(t, f, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	}},
	{name: "InvisibleUntilClose", run: func(t *testing.T, e *env) {
		e.write(t, e.path("sibling"), []byte("s"))
		p := e.path("file")
		want := pattern(8, 0, 100_000)
		out, err := e.fsys.Create(e.ctx, p, vfs.NoOverwrite)
		require.NoError(t, err, "Create(%s)", p)
		_, err = out.Write(want[:50_000])
		require.NoError(t, err, "Write to %s", p)
		require.NoError(t, out.Flush(), "Flush of %s", p)
		require.NoError(t, out.Sync(), "Sync of %s", p)
		_, err = out.Write(want[50_000:])
		require.NoError(t, err, "Write to %s", p)
		require.NoError(t, out.Flush(), "Flush of %s", p)

		e.requireInvisible(t, p)
		require.NotContains(t, e.names(t, e.dir), p.Name(), "List(%s) before Close shows the file being written", e.dir)

		require.NoError(t, out.Close(), "Close of %s", p)
		e.requireContent(t, p, want)
		require.Contains(t, e.names(t, e.dir), p.Name(), "List(%s) after Close", e.dir)
	}},
	{name: "OverwriteInvisibleUntilClose", run: func(t *testing.T, e *env) {
		p := e.path("file")
		old := []byte("old content")
		e.write(t, p, old)
		out, err := e.fsys.Create(e.ctx, p, vfs.Overwrite)
		require.NoError(t, err, "Create(%s, Overwrite)", p)
		_, err = out.Write(pattern(9, 0, 30_000))
		require.NoError(t, err, "Write to %s", p)
		require.NoError(t, out.Flush(), "Flush of %s", p)
		require.NoError(t, out.Sync(), "Sync of %s", p)
		// Readers still see the old file, whole.
		e.requireContent(t, p, old)
		require.NoError(t, out.Close(), "Close of %s", p)
		e.requireContent(t, p, pattern(9, 0, 30_000))
	}},
	{name: "CancelledContext", run: func(t *testing.T, e *env) {
		e.write(t, e.path("keep"), []byte("keep"))
		p := e.path("file")
		ctx, cancel := context.WithCancel(e.ctx)
		defer cancel()
		out, err := e.fsys.Create(ctx, p, vfs.NoOverwrite)
		require.NoError(t, err, "Create(%s)", p)
		_, err = out.Write(pattern(10, 0, 100_000))
		require.NoError(t, err, "Write to %s", p)
		cancel()
		require.Error(t, out.Close(), "Close of %s after its context was cancelled must fail: nothing is published", p)
		e.requireNothingPublished(t, p, []string{"keep"})
	}},
	{name: "CancelledContextOverwrite", run: func(t *testing.T, e *env) {
		p := e.path("file")
		e.write(t, p, []byte("old"))
		ctx, cancel := context.WithCancel(e.ctx)
		defer cancel()
		out, err := e.fsys.Create(ctx, p, vfs.Overwrite)
		require.NoError(t, err, "Create(%s, Overwrite)", p)
		_, err = out.Write([]byte("new content that must never appear"))
		require.NoError(t, err, "Write to %s", p)
		cancel()
		require.Error(t, out.Close(), "Close of %s after its context was cancelled must fail", p)
		e.requireContent(t, p, []byte("old"))
		require.Equal(t, []string{"file"}, e.names(t, e.dir), "List(%s) after a cancelled overwrite", e.dir)
	}},
	{name: "CancelledBeforeCreate", run: func(t *testing.T, e *env) {
		e.write(t, e.path("keep"), []byte("keep"))
		p := e.path("file")
		ctx, cancel := context.WithCancel(e.ctx)
		cancel()
		out, err := e.fsys.Create(ctx, p, vfs.NoOverwrite)
		if err == nil {
			_, _ = out.Write([]byte("x"))
			err = out.Close()
		}
		require.Error(t, err, "Create(%s) with a cancelled context must fail at Create or Close", p)
		e.requireNothingPublished(t, p, []string{"keep"})
	}},
	{name: "Abort", run: func(t *testing.T, e *env) {
		e.write(t, e.path("keep"), []byte("keep"))
		p := e.path("file")
		out, err := e.fsys.Create(e.ctx, p, vfs.NoOverwrite)
		require.NoError(t, err, "Create(%s)", p)
		a := aborterOrSkip(t, out)
		_, err = out.Write(pattern(11, 0, 100_000))
		require.NoError(t, err, "Write to %s", p)
		require.NoError(t, a.Abort(), "Abort of %s", p)
		require.Error(t, out.Close(), "Close of %s after Abort must fail", p)
		e.requireNothingPublished(t, p, []string{"keep"})
	}},
	{name: "AbortOverwrite", run: func(t *testing.T, e *env) {
		p := e.path("file")
		e.write(t, p, []byte("old"))
		out, err := e.fsys.Create(e.ctx, p, vfs.Overwrite)
		require.NoError(t, err, "Create(%s, Overwrite)", p)
		a := aborterOrSkip(t, out)
		_, err = out.Write([]byte("new content that must never appear"))
		require.NoError(t, err, "Write to %s", p)
		require.NoError(t, a.Abort(), "Abort of %s", p)
		require.Error(t, out.Close(), "Close of %s after Abort must fail", p)
		e.requireContent(t, p, []byte("old"))
		require.Equal(t, []string{"file"}, e.names(t, e.dir), "List(%s) after an aborted overwrite", e.dir)
	}},
	{name: "WriteAfterClose", run: func(t *testing.T, e *env) {
		p := e.path("file")
		out, err := e.fsys.Create(e.ctx, p, vfs.NoOverwrite)
		require.NoError(t, err, "Create(%s)", p)
		_, err = out.Write([]byte("data"))
		require.NoError(t, err, "Write to %s", p)
		require.NoError(t, out.Close(), "Close of %s", p)
		n, err := out.Write([]byte("more"))
		require.Error(t, err, "Write to %s after Close must fail", p)
		require.Zero(t, n, "bytes accepted by a Write after Close")
		e.requireContent(t, p, []byte("data"))
	}},
}

// requireInvisible requires that nothing can be seen at p yet.
func (e *env) requireInvisible(t *testing.T, p vfs.Path) {
	t.Helper()
	e.requireMissing(t, p)
	e.requireOpenFails(t, p, fs.ErrNotExist, []error{fs.ErrNotExist}, "of a file that is not published")
}

// requireNothingPublished requires that p does not exist and that its directory
// holds exactly the names in want: no file, no temporary file, nothing.
func (e *env) requireNothingPublished(t *testing.T, p vfs.Path, want []string) {
	t.Helper()
	e.requireInvisible(t, p)
	require.Equal(t, want, e.names(t, p.Parent()), "List(%s) after a discarded write: leftovers", p.Parent())
}

// aborterOrSkip returns out as a vfs.Aborter, or discards it and skips the case
// when the stream does not implement the optional interface.
func aborterOrSkip(t *testing.T, out vfs.OutputStream) vfs.Aborter {
	t.Helper()
	a, ok := out.(vfs.Aborter)
	if !ok {
		discard(out)
		t.Skipf("the output stream (%T) does not implement vfs.Aborter", out)
	}
	return a
}

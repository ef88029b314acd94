package conformance

import (
	"errors"
	"io"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// deleteVersionCases check the conditional delete (vfs.DeleteVersion, and
// the backend's vfs.DeleteVersionFS where it has one): it deletes the version
// that was read and nothing else.
var deleteVersionCases = []testCase{
	{name: "Unchanged", run: func(t *testing.T, e *env) {
		p := e.path("file")
		e.write(t, p, []byte("version one"))
		v := e.readVersion(t, p)
		require.NoError(t, vfs.DeleteVersion(e.ctx, e.fsys, p, v), "DeleteVersion(%s, %s) of the version read", p, v)
		e.requireMissing(t, p)
	}},
	{name: "WrittenVersion", run: func(t *testing.T, e *env) {
		// The version a writer says it published (vfs.WrittenVersion: the
		// stream's own account, vfs.WrittenVersioner, where it gives one)
		// is the one read back, and proves the file: its conditional
		// delete removes the file, and keeps a rewrite.
		p := e.path("file")
		written := e.writeVersion(t, p, []byte("version one"))
		read := e.readVersion(t, p)
		require.True(t, written.Matches(read), "the version the writer of %s says it published (%s) is not the one read back (%s)", p, written, read)
		if read.ID != "" {
			require.Equal(t, read.ID, written.ID, "the version the writer of %s says it published (%s) lacks the store's ID read back (%s)", p, written, read)
		}
		e.writeMode(t, p, []byte("version two"), vfs.Overwrite)
		err := vfs.DeleteVersion(e.ctx, e.fsys, p, written)
		requirePathError(t, err, vfs.ErrChanged, p, "DeleteVersion(%s) of the version written before a rewrite", p)
		e.requireContent(t, p, []byte("version two"))

		q := e.path("other")
		written = e.writeVersion(t, q, []byte("only version"))
		require.NoError(t, vfs.DeleteVersion(e.ctx, e.fsys, q, written), "DeleteVersion(%s, %s) of the version written", q, written)
		e.requireMissing(t, q)
	}},
	{name: "WrittenVersionThenRewrite", run: func(t *testing.T, e *env) {
		// A stream that tells the version it published tells that one,
		// even when the file was written again before it was asked: a
		// conditional delete of it keeps the later write.
		p := e.path("file")
		out := e.writeKeep(t, p, []byte("version one"))
		e.writeMode(t, p, []byte("version two"), vfs.Overwrite)
		wv, ok := out.(vfs.WrittenVersioner)
		if !ok {
			t.Skip("the output streams do not tell the version they publish (vfs.WrittenVersioner)")
		}
		v, err := wv.Version()
		if errors.Is(err, errors.ErrUnsupported) {
			t.Skipf("the output stream cannot tell the version it published: %v", err)
		}
		require.NoError(t, err, "Version of the stream that wrote %s", p)
		err = vfs.DeleteVersion(e.ctx, e.fsys, p, v)
		requirePathError(t, err, vfs.ErrChanged, p, "DeleteVersion(%s, %s): the version the first stream published, after a second wrote", p, v)
		e.requireContent(t, p, []byte("version two"))
	}},
	{name: "RewrittenSameSize", run: func(t *testing.T, e *env) { requireRewriteKept(t, e, "version two") }},
	{name: "RewrittenOtherSize", run: func(t *testing.T, e *env) { requireRewriteKept(t, e, "the second version") }},
	{name: "Gone", run: func(t *testing.T, e *env) {
		p := e.path("file")
		e.write(t, p, []byte("version one"))
		v := e.readVersion(t, p)
		require.NoError(t, e.fsys.Delete(e.ctx, p, false))
		err := vfs.DeleteVersion(e.ctx, e.fsys, p, v)
		requirePathError(t, err, vfs.ErrChanged, p, "DeleteVersion(%s) of a deleted file", p)
		require.ErrorIs(t, err, fs.ErrNotExist, "DeleteVersion(%s) of a deleted file", p)
	}},
	{name: "DirectoryNow", run: func(t *testing.T, e *env) {
		p := e.path("file")
		e.write(t, p, []byte("version one"))
		v := e.readVersion(t, p)
		require.NoError(t, e.fsys.Delete(e.ctx, p, false))
		e.write(t, p.Join("child"), []byte("keep me"))
		err := vfs.DeleteVersion(e.ctx, e.fsys, p, v)
		require.ErrorIs(t, err, vfs.ErrChanged, "DeleteVersion(%s) where a directory now is", p)
		e.requireContent(t, p.Join("child"), []byte("keep me"))
	}},
}

// requireRewriteKept writes a file, reads it, rewrites it with data and
// requires that the conditional delete of the version read keeps data.
func requireRewriteKept(t *testing.T, e *env, data string) {
	t.Helper()
	p := e.path("file")
	e.write(t, p, []byte("version one"))
	v := e.readVersion(t, p)
	e.writeMode(t, p, []byte(data), vfs.Overwrite)
	err := vfs.DeleteVersion(e.ctx, e.fsys, p, v)
	requirePathError(t, err, vfs.ErrChanged, p, "DeleteVersion(%s) of a file rewritten since it was read (as %q)", p, data)
	e.requireContent(t, p, []byte(data))
}

// readVersion reads the file p whole and returns the version it read
// (vfs.StreamVersion).
func (e *env) readVersion(t *testing.T, p vfs.Path) vfs.Version {
	t.Helper()
	in, err := e.fsys.Open(e.ctx, p)
	require.NoError(t, err, "Open(%s)", p)
	defer in.Close()
	_, err = io.ReadAll(in)
	require.NoError(t, err, "read %s", p)
	v, err := vfs.StreamVersion(e.ctx, e.fsys, p, in)
	require.NoError(t, err, "StreamVersion(%s)", p)
	require.False(t, v.ModTime.IsZero() && v.ID == "", "StreamVersion(%s) = %s: neither a modification time nor an ID, so no delete can prove it", p, v)
	return v
}

// writeVersion writes data to the new file p, asking the stream to keep the
// version it publishes (vfs.WrittenVersioner), and returns that version
// (vfs.WrittenVersion).
func (e *env) writeVersion(t *testing.T, p vfs.Path, data []byte) vfs.Version {
	t.Helper()
	out := e.writeKeep(t, p, data)
	v, err := vfs.WrittenVersion(e.ctx, e.fsys, p, out)
	require.NoError(t, err, "WrittenVersion(%s)", p)
	require.False(t, v.ModTime.IsZero() && v.ID == "", "WrittenVersion(%s) = %s: neither a modification time nor an ID, so no delete can prove it", p, v)
	return v
}

// writeKeep writes data to the new file p through a stream asked to keep the
// version it publishes, and returns the stream, closed.
func (e *env) writeKeep(t *testing.T, p vfs.Path, data []byte) vfs.OutputStream {
	t.Helper()
	out, err := e.fsys.Create(e.ctx, p, vfs.NoOverwrite)
	require.NoError(t, err, "Create(%s)", p)
	if wv, ok := out.(vfs.WrittenVersioner); ok {
		wv.KeepVersion()
	}
	_, err = out.Write(data)
	require.NoError(t, err, "Write to %s", p)
	require.NoError(t, out.Close(), "Close of the stream to %s", p)
	return out
}

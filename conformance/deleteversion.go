package conformance

import (
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

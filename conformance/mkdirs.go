package conformance

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// mkdirsCases are Flink's mkdirs tests. On object stores Mkdirs must succeed, but
// the directory need not exist afterwards until something is written under it.
var mkdirsCases = []testCase{
	{name: "New", run: func(t *testing.T, e *env) {
		d := e.path("dir")
		require.NoError(t, e.fsys.Mkdirs(e.ctx, d), "Mkdirs(%s)", d)
		if !e.objectStore {
			e.requireDir(t, d)
			require.Empty(t, e.names(t, d), "List of the new directory %s", d)
		}
	}},
	{name: "Parents", run: func(t *testing.T, e *env) {
		d := e.path("a", "b", "c")
		require.NoError(t, e.fsys.Mkdirs(e.ctx, d), "Mkdirs(%s)", d)
		if !e.objectStore {
			for p := d; p != e.dir; p = p.Parent() {
				e.requireDir(t, p)
			}
		}
	}},
	{name: "Existing", run: func(t *testing.T, e *env) {
		d := e.path("dir")
		f := d.Join("file")
		e.write(t, f, []byte("x"))
		require.NoError(t, e.fsys.Mkdirs(e.ctx, d), "Mkdirs(%s) of an existing directory", d)
		require.NoError(t, e.fsys.Mkdirs(e.ctx, d), "Mkdirs(%s) again", d)
		e.requireDir(t, d)
		e.requireContent(t, f, []byte("x"))
	}},
	{name: "ExistingEmpty", fileSystemOnly: noEmptyDirs, run: func(t *testing.T, e *env) {
		d := e.path("dir")
		require.NoError(t, e.fsys.Mkdirs(e.ctx, d), "Mkdirs(%s)", d)
		require.NoError(t, e.fsys.Mkdirs(e.ctx, d), "Mkdirs(%s) of an existing empty directory", d)
		e.requireDir(t, d)
	}},
	{name: "OnFile", fileSystemOnly: noDirsOnFiles, run: func(t *testing.T, e *env) {
		f := e.file(t, "file")
		requirePathError(t, e.fsys.Mkdirs(e.ctx, f), vfs.ErrNotDir, f, "Mkdirs(%s) on a file", f)
		e.requireContent(t, f, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	}},
	{name: "UnderFile", fileSystemOnly: noDirsOnFiles, run: func(t *testing.T, e *env) {
		f := e.file(t, "file")
		d := f.Join("dir", "sub")
		err := e.fsys.Mkdirs(e.ctx, d)
		requirePathError(t, err, vfs.ErrNotDir, f, "Mkdirs(%s) under a file", d)
		e.requireContent(t, f, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	}},
}

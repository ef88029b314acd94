package conformance

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// deleteCases are Flink's deletion tests plus siblings that share a name prefix
// (the classic object-store bug).
var deleteCases = []testCase{
	{name: "File", run: func(t *testing.T, e *env) { requireDeletes(t, e, e.file(t, "file"), false) }},
	{name: "FileRecursive", run: func(t *testing.T, e *env) { requireDeletes(t, e, e.file(t, "file"), true) }},
	{name: "Missing", run: func(t *testing.T, e *env) { requireDeletes(t, e, e.path("missing"), false) }},
	{name: "MissingRecursive", run: func(t *testing.T, e *env) { requireDeletes(t, e, e.path("missing"), true) }},
	{name: "EmptyDir", run: func(t *testing.T, e *env) {
		d := e.path("dir")
		require.NoError(t, e.fsys.Mkdirs(e.ctx, d), "Mkdirs(%s)", d)
		requireDeletes(t, e, d, false)
	}},
	{name: "EmptyDirRecursive", run: func(t *testing.T, e *env) {
		d := e.path("dir")
		require.NoError(t, e.fsys.Mkdirs(e.ctx, d), "Mkdirs(%s)", d)
		requireDeletes(t, e, d, true)
	}},
	{name: "NonEmptyDirNonRecursive", run: func(t *testing.T, e *env) {
		d := e.path("dir")
		tree := e.tree(t, d)
		err := e.fsys.Delete(e.ctx, d, false)
		requirePathError(t, err, vfs.ErrDirNotEmpty, d, "Delete(%s, recursive=false) of a non-empty directory", d)
		// Nothing at all was deleted.
		e.requireDir(t, d)
		e.requireTree(t, tree)
	}},
	{name: "NonEmptyDirRecursive", run: func(t *testing.T, e *env) {
		d := e.path("dir")
		e.write(t, d.Join("file"), []byte("x"))
		requireDeletes(t, e, d, true)
		e.requireMissing(t, d.Join("file"))
	}},
	{name: "NestedRecursive", run: func(t *testing.T, e *env) {
		d := e.path("level1")
		tree := e.tree(t, d)
		requireDeletes(t, e, d, true)
		for p := range tree {
			e.requireMissing(t, p)
		}
		e.requireMissing(t, d.Join("level2"))
	}},
	{name: "SiblingsUntouched", run: func(t *testing.T, e *env) {
		d := e.path("a")
		e.write(t, d.Join("file"), []byte("x"))
		keep := map[vfs.Path][]byte{
			e.path("ab"):            []byte("file named with the prefix"),
			e.path("a-b", "file"):   []byte("file in a dir named with the prefix"),
			e.path("a.b"):           []byte("dotted"),
			e.path("b", "a", "x"):   []byte("same name elsewhere"),
			e.path("a0", "a", "xy"): []byte("deeper"),
		}
		for p, data := range keep {
			e.write(t, p, data)
		}
		requireDeletes(t, e, d, true)
		e.requireTree(t, keep)
		f := e.path("ab")
		requireDeletes(t, e, f, false)
		delete(keep, f)
		e.requireTree(t, keep)
	}},
}

// requireDeletes deletes p and requires success and that p is gone.
func requireDeletes(t *testing.T, e *env, p vfs.Path, recursive bool) {
	t.Helper()
	require.NoError(t, e.fsys.Delete(e.ctx, p, recursive), "Delete(%s, recursive=%v)", p, recursive)
	e.requireMissing(t, p)
}

// file writes 8 bytes to a new file named name in the case's directory.
func (e *env) file(t *testing.T, name string) vfs.Path {
	t.Helper()
	p := e.path(name)
	e.write(t, p, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	return p
}

// tree writes a small nested tree under d (two files at the top, one two levels
// down) and returns the files and their contents.
func (e *env) tree(t *testing.T, d vfs.Path) map[vfs.Path][]byte {
	t.Helper()
	files := map[vfs.Path][]byte{
		d.Join("one"):                  []byte("first file"),
		d.Join("two"):                  pattern(2, 0, 300),
		d.Join("level2", "three"):      []byte("nested file"),
		d.Join("level2", "l3", "four"): pattern(4, 0, 10),
	}
	for p, data := range files {
		e.write(t, p, data)
	}
	return files
}

// requireTree requires every file of files to exist with its content.
func (e *env) requireTree(t *testing.T, files map[vfs.Path][]byte) {
	t.Helper()
	for p, data := range files {
		e.requireContent(t, p, data)
	}
}

package conformance

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// renameCases check Rename of files and directory trees, and its refusals.
var renameCases = []testCase{
	{name: "File", run: func(t *testing.T, e *env) {
		src, dst := e.path("src"), e.path("other", "dir", "dst")
		want := pattern(20, 0, 5000)
		e.write(t, src, want)
		require.NoError(t, e.fsys.Rename(e.ctx, src, dst), "Rename(%s, %s)", src, dst)
		e.requireMissing(t, src)
		e.requireContent(t, dst, want)
		e.requireDir(t, dst.Parent())
	}},
	{name: "FileInSameDirectory", run: func(t *testing.T, e *env) {
		src, dst := e.path("a"), e.path("b")
		e.write(t, src, []byte("content"))
		require.NoError(t, e.fsys.Rename(e.ctx, src, dst), "Rename(%s, %s)", src, dst)
		e.requireMissing(t, src)
		e.requireContent(t, dst, []byte("content"))
		require.Equal(t, []string{"b"}, e.names(t, e.dir), "List(%s) after Rename", e.dir)
	}},
	{name: "Directory", run: func(t *testing.T, e *env) {
		src, dst := e.path("src"), e.path("moved", "dst")
		tree := e.tree(t, src)
		sibling := e.path("src-sibling")
		e.write(t, sibling, []byte("sibling with the same prefix"))
		require.NoError(t, e.fsys.Rename(e.ctx, src, dst), "Rename(%s, %s) of a directory", src, dst)
		e.requireMissing(t, src)
		moved := map[vfs.Path][]byte{}
		for p, data := range tree {
			e.requireMissing(t, p)
			rel := p.Path()[len(src.Path())+1:]
			moved[dst.Join(rel)] = data
		}
		e.requireTree(t, moved)
		e.requireDir(t, dst)
		e.requireDir(t, dst.Join("level2", "l3"))
		e.requireContent(t, sibling, []byte("sibling with the same prefix"))
	}},
	{name: "EmptyDirectory", fileSystemOnly: noEmptyDirs, run: func(t *testing.T, e *env) {
		src, dst := e.path("src"), e.path("dst")
		require.NoError(t, e.fsys.Mkdirs(e.ctx, src), "Mkdirs(%s)", src)
		require.NoError(t, e.fsys.Rename(e.ctx, src, dst), "Rename(%s, %s) of an empty directory", src, dst)
		e.requireMissing(t, src)
		e.requireDir(t, dst)
	}},
	{name: "OntoExistingFile", run: func(t *testing.T, e *env) {
		src, dst := e.path("src"), e.path("dst")
		e.write(t, src, []byte("source"))
		e.write(t, dst, []byte("destination"))
		requireRenameError(t, e.fsys.Rename(e.ctx, src, dst), fs.ErrExist, src, dst)
		e.requireContent(t, src, []byte("source"))
		e.requireContent(t, dst, []byte("destination"))
	}},
	{name: "FileOntoExistingDirectory", run: func(t *testing.T, e *env) {
		src, dst := e.path("src"), e.path("dst")
		e.write(t, src, []byte("source"))
		e.write(t, dst.Join("inside"), []byte("inside"))
		requireRenameError(t, e.fsys.Rename(e.ctx, src, dst), fs.ErrExist, src, dst)
		e.requireContent(t, src, []byte("source"))
		e.requireContent(t, dst.Join("inside"), []byte("inside"))
		require.Equal(t, []string{"inside"}, e.names(t, dst), "List(%s)", dst)
	}},
	{name: "DirectoryOntoExistingDirectory", run: func(t *testing.T, e *env) {
		src, dst := e.path("src"), e.path("dst")
		tree := e.tree(t, src)
		e.write(t, dst.Join("inside"), []byte("inside"))
		requireRenameError(t, e.fsys.Rename(e.ctx, src, dst), fs.ErrExist, src, dst)
		e.requireTree(t, tree)
		e.requireContent(t, dst.Join("inside"), []byte("inside"))
		require.Equal(t, []string{"inside"}, e.names(t, dst), "List(%s)", dst)
	}},
	{name: "DirectoryOntoExistingFile", run: func(t *testing.T, e *env) {
		src, dst := e.path("src"), e.path("dst")
		tree := e.tree(t, src)
		e.write(t, dst, []byte("file"))
		requireRenameError(t, e.fsys.Rename(e.ctx, src, dst), fs.ErrExist, src, dst)
		e.requireTree(t, tree)
		e.requireContent(t, dst, []byte("file"))
	}},
	{name: "OntoExistingEmptyDirectory", fileSystemOnly: noEmptyDirs, run: func(t *testing.T, e *env) {
		// POSIX rename(2) replaces an empty directory; the contract does not.
		src, dst := e.path("src"), e.path("dst")
		tree := e.tree(t, src)
		require.NoError(t, e.fsys.Mkdirs(e.ctx, dst), "Mkdirs(%s)", dst)
		requireRenameError(t, e.fsys.Rename(e.ctx, src, dst), fs.ErrExist, src, dst)
		e.requireTree(t, tree)
		e.requireDir(t, dst)
		require.Empty(t, e.names(t, dst), "List(%s)", dst)
	}},
	{name: "MissingSource", run: func(t *testing.T, e *env) {
		src, dst := e.path("missing"), e.path("dst")
		requireRenameError(t, e.fsys.Rename(e.ctx, src, dst), fs.ErrNotExist, src, dst)
		e.requireMissing(t, dst)
	}},
}

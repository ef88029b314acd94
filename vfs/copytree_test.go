package vfs_test

import (
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// writeFiles writes files (relative path → content) below root.
func writeFiles(t *testing.T, fsys vfs.FileSystem, root vfs.Path, files map[string]string) {
	t.Helper()
	for rel, data := range files {
		require.NoError(t, vfs.WriteFile(bg, fsys, root.Join(rel), []byte(data), vfs.Overwrite))
	}
}

// readTree returns every file below root (relative path → content).
func readTree(t *testing.T, fsys vfs.FileSystem, root vfs.Path) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := vfs.Walk(bg, fsys, root, func(st vfs.FileStatus, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		require.NoError(t, err)
		if !st.IsDir {
			rel, ok := st.Path.Rel(root)
			require.True(t, ok)
			data, err := vfs.ReadFile(bg, fsys, st.Path)
			require.NoError(t, err)
			got[rel] = string(data)
		}
		return nil
	})
	require.NoError(t, err)
	return got
}

var sample = map[string]string{"a": "alpha", "b/c": "gamma", "b/d/e": "epsilon", "f": ""}

func TestCopyTreeAcrossFileSystems(t *testing.T) {
	src, sroot := memfs.NewTest(t)
	dst, droot := memfs.NewTest(t)
	writeFiles(t, src, sroot.Join("tree"), sample)
	var last vfs.CopyProgress
	calls := 0
	res, err := vfs.CopyTree(bg, dst, droot.Join("copy"), src, sroot.Join("tree"), vfs.CopyOptions{
		Progress: func(p vfs.CopyProgress) { last = p; calls++ },
	})
	require.NoError(t, err)
	assert.Equal(t, sample, readTree(t, dst, droot.Join("copy")))
	assert.Len(t, res.Files, 4)
	assert.Equal(t, int64(len("alphagammaepsilon")), res.Bytes)
	assert.Equal(t, vfs.CopyProgress{Files: 4, TotalFiles: 4, Bytes: res.Bytes, TotalBytes: res.Bytes}, last)
	assert.Greater(t, calls, 4)
	assert.Equal(t, sample, readTree(t, src, sroot.Join("tree")), "the source is untouched")
}

func TestCopyTreeRefusesADestinationInsideTheSource(t *testing.T) {
	fsys, root := memfs.NewTest(t)
	writeFiles(t, fsys, root.Join("tree"), sample)
	for _, d := range []vfs.Path{root.Join("tree"), root.Join("tree", "b", "x")} {
		_, err := vfs.CopyTree(bg, fsys, d, fsys, root.Join("tree"), vfs.CopyOptions{})
		require.ErrorIs(t, err, fs.ErrInvalid, "%s", d)
	}
	assert.Equal(t, sample, readTree(t, fsys, root.Join("tree")))
	_, err := vfs.MoveTree(bg, fsys, root.Join("tree", "b"), fsys, root.Join("tree"), vfs.CopyOptions{})
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Equal(t, sample, readTree(t, fsys, root.Join("tree")))
}

// TestCopyTreeUndoesExactlyWhatItWrote: a copy that meets an existing file
// (OverwriteNever) fails, and what it wrote is gone while what was there
// before stays, byte for byte.
func TestCopyTreeUndoesExactlyWhatItWrote(t *testing.T) {
	src, sroot := memfs.NewTest(t)
	dst, droot := memfs.NewTest(t)
	writeFiles(t, src, sroot, sample)
	before := map[string]string{"b/d/e": "theirs", "b/other": "keep me"}
	writeFiles(t, dst, droot, before)
	_, err := vfs.CopyTree(bg, dst, droot, src, sroot, vfs.CopyOptions{Concurrency: 1})
	require.ErrorIs(t, err, fs.ErrExist)
	assert.Equal(t, before, readTree(t, dst, droot), "a, b/c were copied before b/d/e failed, and undone")
}

func TestCopyTreeOverwritePolicies(t *testing.T) {
	src, sroot := memfs.NewTest(t)
	writeFiles(t, src, sroot, sample)
	for _, c := range []struct {
		policy      vfs.OverwritePolicy
		old         bool // the destination file is older than the source
		want        string
		wantSkipped int
	}{
		{vfs.OverwriteAlways, false, "epsilon", 0},
		{vfs.OverwriteSkip, true, "theirs", 1},
		{vfs.OverwriteOlder, true, "epsilon", 0},
		{vfs.OverwriteOlder, false, "theirs", 1},
	} {
		dst, droot := memfs.NewTest(t)
		writeFiles(t, dst, droot, map[string]string{"b/d/e": "theirs"})
		if !c.old {
			time.Sleep(time.Millisecond) // the source must be older: rewrite it
			writeFiles(t, dst, droot, map[string]string{"b/d/e": "theirs"})
		} else {
			writeFiles(t, src, sroot, map[string]string{"b/d/e": "epsilon"})
		}
		res, err := vfs.CopyTree(bg, dst, droot, src, sroot, vfs.CopyOptions{Overwrite: c.policy})
		require.NoError(t, err, "%v", c)
		got := readTree(t, dst, droot)
		assert.Equal(t, c.want, got["b/d/e"], "%v", c)
		assert.Equal(t, "alpha", got["a"], "%v", c)
		assert.Len(t, res.Skipped, c.wantSkipped, "%v", c)
	}
}

// TestMoveTreeLeavesWhatChangedOrAppeared: while the move runs, a copied
// source file is rewritten and a new one appears; both stay at the source
// byte for byte, the result and the error name them, and only the unchanged
// copied files are deleted.
func TestMoveTreeLeavesWhatChangedOrAppeared(t *testing.T) {
	src, sroot := memfs.NewTest(t)
	dst, droot := memfs.NewTest(t)
	writeFiles(t, src, sroot.Join("tree"), sample)
	res, err := vfs.MoveTree(bg, dst, droot.Join("moved"), src, sroot.Join("tree"), vfs.CopyOptions{
		Concurrency: 1,
		Progress: func(p vfs.CopyProgress) {
			if p.Files == 2 && p.Bytes == int64(len("alphagamma")) { // a and b/c are copied
				writeFiles(t, src, sroot.Join("tree"), map[string]string{"a": "ALPHA, rewritten", "b/new": "new file"})
			}
		},
	})
	var left *vfs.LeftError
	require.ErrorAs(t, err, &left)
	require.ErrorIs(t, err, vfs.ErrChanged)
	assert.Equal(t, sample, readTree(t, dst, droot.Join("moved")), "the copy holds what was read")
	assert.Equal(t, map[string]string{"a": "ALPHA, rewritten", "b/new": "new file"}, readTree(t, src, sroot.Join("tree")))
	var names []string
	for _, l := range res.Left {
		names = append(names, l.Path.Name())
	}
	assert.ElementsMatch(t, []string{"a", "new"}, names)
	assert.Contains(t, err.Error(), "tree/a")
	assert.Contains(t, err.Error(), "tree/b/new")
	ok, err := vfs.Exists(bg, src, sroot.Join("tree", "b", "d"))
	require.NoError(t, err)
	assert.False(t, ok, "b/d was left empty and removed")
}

func TestMoveTreeMovesEverything(t *testing.T) {
	src, sroot := memfs.NewTest(t)
	dst, droot := memfs.NewTest(t)
	writeFiles(t, src, sroot.Join("tree"), sample)
	res, err := vfs.MoveTree(bg, dst, droot.Join("moved"), src, sroot.Join("tree"), vfs.CopyOptions{})
	require.NoError(t, err)
	assert.Empty(t, res.Left)
	assert.Equal(t, sample, readTree(t, dst, droot.Join("moved")))
	ok, err := vfs.Exists(bg, src, sroot.Join("tree"))
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestPathRel(t *testing.T) {
	for _, c := range []struct {
		dir, p, rel string
		ok          bool
	}{
		{"s3://b/a", "s3://b/a", "", true},
		{"s3://b/a", "s3://b/a/x/y", "x/y", true},
		{"s3://b/a", "s3://b/ab", "", false},
		{"s3://b/", "s3://b/x", "x", true},
		{"s3://b/a", "s3://c/a/x", "", false},
		{"s3://b/a", "gs://b/a/x", "", false},
		{"/a", "/a/x", "x", true},
	} {
		rel, ok := vfs.MustPath(c.p).Rel(vfs.MustPath(c.dir))
		assert.Equal(t, c.ok, ok, "%v", c)
		assert.Equal(t, c.rel, rel, "%v", c)
		if ok {
			assert.Equal(t, vfs.MustPath(c.p), vfs.MustPath(c.dir).Join(rel))
		}
	}
}

// TestMoveTreeWithinOneFileSystem: the server-side copy path (CopyFS) proves
// the source unchanged by its status before and after the copy.
func TestMoveTreeWithinOneFileSystem(t *testing.T) {
	fsys, root := memfs.NewTest(t)
	writeFiles(t, fsys, root.Join("tree"), sample)
	_, err := vfs.MoveTree(bg, fsys, root.Join("moved"), fsys, root.Join("tree"), vfs.CopyOptions{
		Concurrency: 1,
		Progress: func(p vfs.CopyProgress) {
			if p.Files == 1 { // a is copied
				writeFiles(t, fsys, root.Join("tree"), map[string]string{"a": "rewritten"})
			}
		},
	})
	require.ErrorIs(t, err, vfs.ErrChanged)
	assert.Equal(t, sample, readTree(t, fsys, root.Join("moved")))
	assert.Equal(t, map[string]string{"a": "rewritten"}, readTree(t, fsys, root.Join("tree")))
}

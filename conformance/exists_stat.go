package conformance

import (
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// existsCases are Flink's testFileExists and testFileDoesNotExist.
var existsCases = []testCase{
	{name: "File", run: func(t *testing.T, e *env) {
		p := e.path("file")
		e.write(t, p, []byte{1, 2, 3, 4, 5, 6, 7, 8})
		ok, err := vfs.Exists(e.ctx, e.fsys, p)
		require.NoError(t, err, "Exists(%s)", p)
		require.True(t, ok, "Exists(%s) of a file just written", p)
	}},
	{name: "Missing", run: func(t *testing.T, e *env) {
		e.requireMissing(t, e.path("missing"))
		e.requireMissing(t, e.path("missing", "deeper"))
	}},
}

// statCases check FileStatus: sizes, times, directory flags and paths.
var statCases = []testCase{
	{name: "File", run: func(t *testing.T, e *env) {
		p := e.path("file")
		e.write(t, p, pattern(1, 0, 1234))
		st, err := e.fsys.Stat(e.ctx, p)
		require.NoError(t, err, "Stat(%s)", p)
		requireStatus(t, e, st, p, 1234, false)
	}},
	{name: "EmptyFile", run: func(t *testing.T, e *env) {
		p := e.path("empty")
		e.write(t, p, nil)
		st, err := e.fsys.Stat(e.ctx, p)
		require.NoError(t, err, "Stat(%s)", p)
		requireStatus(t, e, st, p, 0, false)
	}},
	{name: "Directory", run: func(t *testing.T, e *env) {
		// A directory that holds a file exists on every kind of file system.
		d := e.path("dir")
		e.write(t, d.Join("file"), []byte("x"))
		st, err := e.fsys.Stat(e.ctx, d)
		require.NoError(t, err, "Stat(%s)", d)
		requireStatus(t, e, st, d, 0, true)
	}},
	{name: "ParentsOfFile", run: func(t *testing.T, e *env) {
		// Create makes missing parents; each is a directory.
		p := e.path("a", "b", "c", "file")
		e.write(t, p, []byte("x"))
		for d := p.Parent(); d != e.dir; d = d.Parent() {
			e.requireDir(t, d)
		}
	}},
	{name: "EmptyDirectory", fileSystemOnly: noEmptyDirs, run: func(t *testing.T, e *env) {
		d := e.path("empty-dir")
		require.NoError(t, e.fsys.Mkdirs(e.ctx, d), "Mkdirs(%s)", d)
		st, err := e.fsys.Stat(e.ctx, d)
		require.NoError(t, err, "Stat(%s)", d)
		requireStatus(t, e, st, d, 0, true)
	}},
	{name: "Missing", run: func(t *testing.T, e *env) {
		p := e.path("missing")
		_, err := e.fsys.Stat(e.ctx, p)
		requirePathError(t, err, fs.ErrNotExist, p, "Stat(%s)", p)
	}},
	{name: "MissingUnderFile", run: func(t *testing.T, e *env) {
		f := e.path("file")
		e.write(t, f, []byte("x"))
		p := f.Join("child")
		_, err := e.fsys.Stat(e.ctx, p)
		requirePathError(t, err, fs.ErrNotExist, p, "Stat(%s) under a file", p)
	}},
}

// requireStatus checks one FileStatus against what the case wrote.
func requireStatus(t *testing.T, e *env, st vfs.FileStatus, p vfs.Path, size int64, isDir bool) {
	t.Helper()
	require.Equal(t, p, st.Path.MakeQualified(e.fsys), "FileStatus.Path of %s (qualified)", p)
	require.Equal(t, p.Name(), st.Name(), "FileStatus.Name() of %s", p)
	require.Equal(t, isDir, st.IsDir, "FileStatus.IsDir of %s", p)
	require.Equal(t, size, st.Size, "FileStatus.Size of %s", p)
	if !isDir || !e.objectStore {
		// An object store's implicit directory may have no time of its own.
		require.False(t, st.ModTime.IsZero(), "FileStatus.ModTime of %s is zero", p)
		require.True(t, st.ModTime.After(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)),
			"FileStatus.ModTime of %s is %v, before 2000", p, st.ModTime)
	}
}

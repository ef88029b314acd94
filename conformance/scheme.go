package conformance

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// schemeCases check identity: URI, home and working directories, and that paths
// of another file system are refused (Flink's testPathAndScheme, testHomeDirScheme,
// testWorkDirScheme).
var schemeCases = []testCase{
	{name: "URI", run: func(t *testing.T, e *env) {
		u := e.fsys.URI()
		require.NotNil(t, u, "URI()")
		require.NotEmpty(t, u.Scheme, "URI().Scheme of %s", u)
		require.Equal(t, strings.ToLower(u.Scheme), u.Scheme, "URI().Scheme must be lower case")
		require.Contains(t, []string{"", "/"}, u.Path, "URI() must be scheme://authority/, got %s", u)
		if s := e.raw.Scheme(); s != "" {
			require.Equal(t, u.Scheme, s, "the test directory %s and the file system %s have different schemes", e.raw, u)
		}
		require.Equal(t, u.Scheme, e.dir.Scheme(), "scheme of the qualified test directory %s", e.dir)
	}},
	{name: "HomeDirectory", run: func(t *testing.T, e *env) {
		requireOwnAbsolutePath(t, e, e.fsys.HomeDirectory(), "HomeDirectory()")
	}},
	{name: "WorkingDirectory", run: func(t *testing.T, e *env) {
		requireOwnAbsolutePath(t, e, e.fsys.WorkingDirectory(), "WorkingDirectory()")
	}},
	{name: "Registry", run: func(t *testing.T, e *env) {
		if !e.h.Registered {
			t.Skip("Harness.Registered is false: the scheme is not in the default registry")
		}
		got, err := vfs.Get(e.ctx, e.dir.String())
		require.NoError(t, err, "vfs.Get(%s)", e.dir)
		require.Equal(t, e.fsys.URI().String(), got.URI().String(), "URI of vfs.Get(%s)", e.dir)
	}},
	{name: "UnqualifiedPaths", run: func(t *testing.T, e *env) {
		// A path without scheme and authority names the same file as the qualified one.
		p := e.path("file")
		e.write(t, p, []byte("plain"))
		bare, err := vfs.NewPath(p.Path())
		require.NoError(t, err, "NewPath(%q)", p.Path())
		st, err := e.fsys.Stat(e.ctx, bare)
		require.NoError(t, err, "Stat(%s) of a path without scheme and authority", bare)
		require.Equal(t, int64(5), st.Size, "Stat(%s).Size", bare)
		require.Equal(t, p, st.Path.MakeQualified(e.fsys), "Stat(%s).Path qualified", bare)
		e.requireContent(t, bare, []byte("plain"))
	}},
	{name: "RelativePaths", run: func(t *testing.T, e *env) {
		// A relative path resolves against WorkingDirectory, with ".." as needed.
		wd := e.fsys.WorkingDirectory().MakeQualified(e.fsys)
		rel := strings.Repeat("../", wd.Depth()) + strings.TrimPrefix(e.dir.Path(), "/")
		relDir, err := vfs.NewPath(rel)
		require.NoError(t, err, "NewPath(%q)", rel)
		require.False(t, relDir.IsAbsolute(), "%q must be relative", rel)
		require.Equal(t, e.dir, relDir.MakeQualified(e.fsys), "%q qualified against the working directory %s", rel, wd)

		e.write(t, e.path("absolute"), []byte("written by absolute path"))
		e.requireContent(t, relDir.Join("absolute"), []byte("written by absolute path"))
		e.write(t, relDir.Join("relative"), []byte("written by relative path"))
		e.requireContent(t, e.path("relative"), []byte("written by relative path"))
		requireSameNames(t, []string{"absolute", "relative"}, e.names(t, relDir), "List(%s)", relDir)
	}},
	{name: "ForeignSchemeRejected", run: func(t *testing.T, e *env) {
		foreign := vfs.MustPath("vfskit-foreign-scheme://elsewhere" + e.dir.Path())
		requireForeignRejected(t, e, foreign)
	}},
	{name: "ForeignAuthorityRejected", run: func(t *testing.T, e *env) {
		other := "vfskit-foreign-authority"
		if a := e.dir.Authority(); a == other {
			other += "-2"
		}
		foreign := vfs.MustPath(e.fsys.URI().Scheme + "://" + other + e.dir.Path())
		requireForeignRejected(t, e, foreign)
	}},
	{name: "ZeroPathRejected", run: func(t *testing.T, e *env) {
		e.write(t, e.path("keep"), []byte("keep"))
		requireAllOpsFail(t, e, vfs.Path{}, fs.ErrInvalid)
		e.requireContent(t, e.path("keep"), []byte("keep"))
	}},
	{name: "TestDirectoryEmpty", run: func(t *testing.T, e *env) {
		// The harness's promise, checked so that no case starts from a dirty directory;
		// and the suite's Mkdirs made it a directory on a real file system.
		list, err := e.fsys.List(e.ctx, e.dir)
		if e.objectStore && err != nil {
			requirePathError(t, err, fs.ErrNotExist, e.dir, "List of the (implicit, empty) test directory")
			return
		}
		require.NoError(t, err, "List(%s) of the test directory", e.dir)
		require.Empty(t, list, "the test directory %s from Harness.New must be empty", e.dir)
		if !e.objectStore {
			e.requireDir(t, e.dir)
		}
	}},
}

// requireOwnAbsolutePath requires that p is an absolute path whose scheme (if any)
// and authority (if any) are the file system's.
func requireOwnAbsolutePath(t *testing.T, e *env, p vfs.Path, what string) {
	t.Helper()
	require.False(t, p.IsZero(), "%s is the zero Path", what)
	require.True(t, p.IsAbsolute(), "%s = %s is not absolute", what, p)
	q := p.MakeQualified(e.fsys)
	require.Equal(t, e.fsys.URI().Scheme, q.Scheme(), "scheme of %s = %s", what, p)
	require.Equal(t, e.dir.Authority(), q.Authority(), "authority of %s = %s", what, p)
	_, err := vfs.Qualify("check", e.fsys, p)
	require.NoError(t, err, "%s = %s does not belong to its own file system", what, p)
}

// requireForeignRejected requires that every operation on a path of another file
// system fails with fs.ErrInvalid and touches nothing on this one.
func requireForeignRejected(t *testing.T, e *env, foreign vfs.Path) {
	t.Helper()
	e.write(t, e.path("keep"), []byte("keep"))
	requireAllOpsFail(t, e, foreign.Join("x"), fs.ErrInvalid)
	// Nothing was created at the same path on this file system, and nothing deleted.
	e.requireMissing(t, e.path("x"))
	e.requireContent(t, e.path("keep"), []byte("keep"))
}

// requireAllOpsFail runs every FileSystem operation on p (and Rename from the
// existing file "keep" to p and from p to a fresh path) and requires each to fail
// with target.
func requireAllOpsFail(t *testing.T, e *env, p vfs.Path, target error) {
	t.Helper()
	ctx := e.ctx
	_, err := e.fsys.Stat(ctx, p)
	requirePathError(t, err, target, p, "Stat(%q)", p)
	_, err = e.fsys.List(ctx, p)
	requirePathError(t, err, target, p, "List(%q)", p)
	in, err := e.fsys.Open(ctx, p)
	if err == nil {
		_ = in.Close()
	}
	requirePathError(t, err, target, p, "Open(%q)", p)
	for _, mode := range []vfs.WriteMode{vfs.NoOverwrite, vfs.Overwrite} {
		out, err := e.fsys.Create(ctx, p, mode)
		if err == nil {
			discard(out)
		}
		requirePathError(t, err, target, p, "Create(%q, %s)", p, mode)
	}
	requirePathError(t, e.fsys.Mkdirs(ctx, p), target, p, "Mkdirs(%q)", p)
	for _, recursive := range []bool{false, true} {
		requirePathError(t, e.fsys.Delete(ctx, p, recursive), target, p, "Delete(%q, recursive=%v)", p, recursive)
	}
	keep, fresh := e.path("keep"), e.path("renamed")
	requireRenameError(t, e.fsys.Rename(ctx, keep, p), target, keep, p)
	requireRenameError(t, e.fsys.Rename(ctx, p, fresh), target, p, fresh)
	e.requireMissing(t, fresh)
}

// discard throws a stream away without publishing it, whatever it supports.
func discard(out vfs.OutputStream) { vfs.Discard(out, nil) }

// Package badinput holds the bad-input tests (hostile names and arguments, as
// they apply to a file system backend) that every aferofs-based backend runs on itself: each bad
// input fails with an *fs.PathError naming the path and wrapping the right
// sentinel, nothing panics, and nothing is lost.
package badinput

import (
	"context"
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// Run runs the bad-input cases on fsys inside dir, an empty directory the test
// owns. foreign is a path of another scheme or authority than fsys's.
func Run(t *testing.T, fsys vfs.FileSystem, dir vfs.Path, foreign vfs.Path) {
	ctx := context.Background()
	file := dir.Join("file")
	sub := dir.Join("sub")
	inner := sub.Join("inner")
	require.NoError(t, vfs.WriteFile(ctx, fsys, file, []byte("keep"), vfs.NoOverwrite))
	require.NoError(t, vfs.WriteFile(ctx, fsys, inner, []byte("inner"), vfs.NoOverwrite))

	// intact checks that nothing was lost or added by a failed operation.
	intact := func(t *testing.T) {
		t.Helper()
		got, err := vfs.ReadFile(ctx, fsys, file)
		require.NoError(t, err)
		assert.Equal(t, "keep", string(got))
		got, err = vfs.ReadFile(ctx, fsys, inner)
		require.NoError(t, err)
		assert.Equal(t, "inner", string(got))
		entries, err := fsys.List(ctx, dir)
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		assert.Equal(t, []string{"file", "sub"}, names)
	}

	for _, tc := range []struct {
		name   string
		op     func() error
		want   error
		naming vfs.Path // the path the error must name; zero: the empty path
	}{
		{"stat empty path", func() error { _, err := fsys.Stat(ctx, vfs.Path{}); return err }, fs.ErrInvalid, vfs.Path{}},
		{"list empty path", func() error { _, err := fsys.List(ctx, vfs.Path{}); return err }, fs.ErrInvalid, vfs.Path{}},
		{"open empty path", func() error { _, err := fsys.Open(ctx, vfs.Path{}); return err }, fs.ErrInvalid, vfs.Path{}},
		{"create empty path", func() error { _, err := fsys.Create(ctx, vfs.Path{}, vfs.Overwrite); return err }, fs.ErrInvalid, vfs.Path{}},
		{"mkdirs empty path", func() error { return fsys.Mkdirs(ctx, vfs.Path{}) }, fs.ErrInvalid, vfs.Path{}},
		{"delete empty path", func() error { return fsys.Delete(ctx, vfs.Path{}, true) }, fs.ErrInvalid, vfs.Path{}},
		{"rename from empty path", func() error { return fsys.Rename(ctx, vfs.Path{}, dir.Join("x")) }, fs.ErrInvalid, vfs.Path{}},

		{"stat foreign path", func() error { _, err := fsys.Stat(ctx, foreign); return err }, fs.ErrInvalid, foreign},
		{"list foreign path", func() error { _, err := fsys.List(ctx, foreign); return err }, fs.ErrInvalid, foreign},
		{"open foreign path", func() error { _, err := fsys.Open(ctx, foreign); return err }, fs.ErrInvalid, foreign},
		{"create foreign path", func() error { _, err := fsys.Create(ctx, foreign, vfs.Overwrite); return err }, fs.ErrInvalid, foreign},
		{"mkdirs foreign path", func() error { return fsys.Mkdirs(ctx, foreign) }, fs.ErrInvalid, foreign},
		{"delete foreign path", func() error { return fsys.Delete(ctx, foreign, true) }, fs.ErrInvalid, foreign},
		{"rename onto foreign path", func() error { return fsys.Rename(ctx, file, foreign) }, fs.ErrInvalid, foreign},

		{"create on a directory", func() error { _, err := fsys.Create(ctx, sub, vfs.Overwrite); return err }, vfs.ErrIsDir, sub},
		{"create on a directory without overwrite", func() error { _, err := fsys.Create(ctx, sub, vfs.NoOverwrite); return err }, vfs.ErrIsDir, sub},
		{"create on an existing file", func() error { _, err := fsys.Create(ctx, file, vfs.NoOverwrite); return err }, fs.ErrExist, file},
		{"create under a file", func() error { _, err := fsys.Create(ctx, file.Join("x"), vfs.Overwrite); return err }, vfs.ErrNotDir, file.Join("x")},
		{"create with an invalid mode", func() error { _, err := fsys.Create(ctx, dir.Join("m"), vfs.WriteMode(7)); return err }, fs.ErrInvalid, dir.Join("m")},
		{"open a directory", func() error { _, err := fsys.Open(ctx, sub); return err }, vfs.ErrIsDir, sub},
		{"open a missing file", func() error { _, err := fsys.Open(ctx, dir.Join("missing")); return err }, fs.ErrNotExist, dir.Join("missing")},
		{"open below a file", func() error { _, err := fsys.Open(ctx, file.Join("x")); return err }, fs.ErrNotExist, file.Join("x")},
		{"stat a missing file", func() error { _, err := fsys.Stat(ctx, dir.Join("missing")); return err }, fs.ErrNotExist, dir.Join("missing")},
		{"list a missing directory", func() error { _, err := fsys.List(ctx, dir.Join("missing")); return err }, fs.ErrNotExist, dir.Join("missing")},
		{"mkdirs on a file", func() error { return fsys.Mkdirs(ctx, file) }, vfs.ErrNotDir, file},
		{"mkdirs under a file", func() error { return fsys.Mkdirs(ctx, file.Join("a", "b")) }, vfs.ErrNotDir, file.Join("a", "b")},
		{"rename a missing source", func() error { return fsys.Rename(ctx, dir.Join("missing"), dir.Join("x")) }, fs.ErrNotExist, dir.Join("missing")},
		{"rename onto an existing file", func() error { return fsys.Rename(ctx, inner, file) }, fs.ErrExist, file},
		{"rename onto an existing directory", func() error { return fsys.Rename(ctx, file, sub) }, fs.ErrExist, sub},
		{"rename onto itself", func() error { return fsys.Rename(ctx, file, file) }, fs.ErrExist, file},
		{"rename a directory into itself", func() error { return fsys.Rename(ctx, sub, sub.Join("deeper")) }, fs.ErrInvalid, sub.Join("deeper")},
		{"rename under a file", func() error { return fsys.Rename(ctx, inner, file.Join("x")) }, vfs.ErrNotDir, file.Join("x")},
		{"delete a non-empty directory", func() error { return fsys.Delete(ctx, sub, false) }, vfs.ErrDirNotEmpty, sub},
		{"delete a non-empty parent", func() error { return fsys.Delete(ctx, dir, false) }, vfs.ErrDirNotEmpty, dir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.op()
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.want)
			var pe *fs.PathError
			require.True(t, errors.As(err, &pe), "%T is not an *fs.PathError", err)
			want := tc.naming.String()
			if tc.naming != foreign && !tc.naming.IsZero() {
				want = tc.naming.MakeQualified(fsys).String()
			}
			assert.Equal(t, want, pe.Path, "the error names the offending path")
			assert.Contains(t, err.Error(), pe.Path)
			intact(t)
		})
	}

	t.Run("deleting a missing path is fine", func(t *testing.T) {
		require.NoError(t, fsys.Delete(ctx, dir.Join("missing"), false))
		require.NoError(t, fsys.Delete(ctx, file.Join("below"), true))
		intact(t)
	})
}

package readonly_test

import (
	"io"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/readonly"
	"github.com/vfskit/vfskit/vfs"
)

// snapshot returns every path below root with its content ("/" for a
// directory).
func snapshot(t *testing.T, fsys vfs.FileSystem, root vfs.Path) map[string]string {
	t.Helper()
	got := map[string]string{}
	require.NoError(t, vfs.Walk(t.Context(), fsys, root, func(st vfs.FileStatus, err error) error {
		require.NoError(t, err)
		if st.IsDir {
			got[st.Path.String()] = "/"
			return nil
		}
		data, err := vfs.ReadFile(t.Context(), fsys, st.Path)
		require.NoError(t, err)
		got[st.Path.String()] = string(data)
		return nil
	}))
	return got
}

func TestReadOnly(t *testing.T) {
	for name, inner := range map[string]func(t *testing.T) (vfs.FileSystem, vfs.Path){
		"memory": func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			m := memfs.New()
			return m, vfs.MustPath(m.URI().String()).Join("ro")
		},
		"file": func(t *testing.T) (vfs.FileSystem, vfs.Path) { return local.New(), vfs.MustPath(t.TempDir()) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			inner, dir := inner(t)
			a, sub := dir.Join("a"), dir.Join("sub")
			require.NoError(t, vfs.WriteFile(ctx, inner, a, []byte("alpha"), vfs.NoOverwrite))
			require.NoError(t, vfs.WriteFile(ctx, inner, sub.Join("b"), []byte("beta"), vfs.NoOverwrite))
			before := snapshot(t, inner, dir)
			ro := readonly.New(inner)

			mutations := map[string]func() error{
				"Create": func() error {
					out, err := ro.Create(ctx, dir.Join("new"), vfs.NoOverwrite)
					require.Nil(t, out)
					return err
				},
				"CreateOverwrite": func() error { _, err := ro.Create(ctx, a, vfs.Overwrite); return err },
				"WriteFile":       func() error { return vfs.WriteFile(ctx, ro, a, []byte("x"), vfs.Overwrite) },
				"Copy":            func() error { _, err := vfs.CopyWithMode(ctx, ro, dir.Join("c"), ro, a, vfs.NoOverwrite); return err },
				"CopyFrom":        func() error { _, err := vfs.CopyFrom(ctx, ro, dir.Join("c"), nil, vfs.NoOverwrite); return err },
				"Mkdirs":          func() error { return ro.Mkdirs(ctx, dir.Join("d")) },
				"MkdirsExisting":  func() error { return ro.Mkdirs(ctx, sub) },
				"Delete":          func() error { return ro.Delete(ctx, a, false) },
				"DeleteRecursive": func() error { return ro.Delete(ctx, dir, true) },
				"DeleteMissing":   func() error { return ro.Delete(ctx, dir.Join("missing"), false) },
				"Rename":          func() error { return ro.Rename(ctx, a, dir.Join("renamed")) },
				"CleanTemp":       func() error { _, err := vfs.CleanTemp(ctx, ro, dir, 0); return err },
			}
			for op, do := range mutations {
				err := do()
				require.ErrorIs(t, err, fs.ErrPermission, op)
				var pe *fs.PathError
				require.ErrorAs(t, err, &pe, op)
				require.Contains(t, pe.Path, dir.Path(), op)
				require.ErrorContains(t, err, "read-only", op)
			}
			require.Equal(t, before, snapshot(t, inner, dir), "nothing changed")

			// Reads go through.
			require.Equal(t, before, snapshot(t, ro, dir))
			in, err := ro.Open(ctx, a)
			require.NoError(t, err)
			data, err := io.ReadAll(in)
			require.NoError(t, err)
			require.NoError(t, in.Close())
			require.Equal(t, "alpha", string(data))
			temps, err := vfs.FindTemp(ctx, ro, dir, time.Hour)
			require.NoError(t, err)
			require.Empty(t, temps)
			_, err = ro.Stat(ctx, dir.Join("missing"))
			require.ErrorIs(t, err, fs.ErrNotExist)
		})
	}
}

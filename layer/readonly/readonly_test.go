package readonly_test

import (
	"context"
	"io"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/layer/internal/layertest"
	"github.com/vfskit/vfskit/layer/readonly"
	"github.com/vfskit/vfskit/vfs"
)

// TestConformance runs the whole suite on the read side of the layer: every
// read (Stat, List, Open, ReadFile, RealPath, URI, ...) goes through
// readonly, the suite's own writes go straight to the file system below
// (writable), since through readonly they must fail (TestReadOnly).
func TestConformance(t *testing.T) {
	layertest.Conformance(t, func(t *testing.T, inner vfs.FileSystem, dir vfs.Path) (vfs.FileSystem, vfs.Path) {
		return &writable{Base: layer.Base{Inner: readonly.New(inner)}, w: inner}, dir
	})
}

// writable reads through the layer below it and writes to w.
type writable struct {
	layer.Base
	w vfs.FileSystem
}

func (f *writable) RecoverableWriter() (vfs.RecoverableWriter, error) {
	return vfs.NewRecoverableWriter(f.w)
}

func (f *writable) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.w.Create(ctx, p, mode)
}

func (f *writable) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return (&layer.Base{Inner: f.w}).CreateUnsynced(ctx, p, mode)
}

func (f *writable) WriteFile(ctx context.Context, p vfs.Path, data []byte, mode vfs.WriteMode) error {
	return vfs.WriteFile(ctx, f.w, p, data, mode)
}

func (f *writable) CopyFile(ctx context.Context, dst, src vfs.Path, mode vfs.WriteMode) (int64, error) {
	return vfs.CopyWithMode(ctx, f.w, dst, f.w, src, mode)
}

func (f *writable) Mkdirs(ctx context.Context, p vfs.Path) error { return f.w.Mkdirs(ctx, p) }

func (f *writable) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	return f.w.Delete(ctx, p, recursive)
}

func (f *writable) DeleteVersion(ctx context.Context, p vfs.Path, v vfs.Version) error {
	return vfs.DeleteVersion(ctx, f.w, p, v)
}

func (f *writable) Rename(ctx context.Context, src, dst vfs.Path) error {
	return f.w.Rename(ctx, src, dst)
}

func (f *writable) CleanTemp(ctx context.Context, dir vfs.Path, cutoff time.Time, dryRun bool) ([]vfs.Path, error) {
	if dryRun {
		return f.Base.CleanTemp(ctx, dir, cutoff, true)
	}
	return (&layer.Base{Inner: f.w}).CleanTemp(ctx, dir, cutoff, false)
}

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
				"CreateUnsynced":  func() error { _, err := ro.CreateUnsynced(ctx, dir.Join("new"), vfs.NoOverwrite); return err },
				"WriteFile":       func() error { return vfs.WriteFile(ctx, ro, a, []byte("x"), vfs.Overwrite) },
				"Copy":            func() error { _, err := vfs.CopyWithMode(ctx, ro, dir.Join("c"), ro, a, vfs.NoOverwrite); return err },
				"CopyFrom":        func() error { _, err := vfs.CopyFrom(ctx, ro, dir.Join("c"), nil, vfs.NoOverwrite); return err },
				"Mkdirs":          func() error { return ro.Mkdirs(ctx, dir.Join("d")) },
				"MkdirsExisting":  func() error { return ro.Mkdirs(ctx, sub) },
				"Delete":          func() error { return ro.Delete(ctx, a, false) },
				"DeleteRecursive": func() error { return ro.Delete(ctx, dir, true) },
				"DeleteMissing":   func() error { return ro.Delete(ctx, dir.Join("missing"), false) },
				"DeleteVersion":   func() error { return vfs.DeleteVersion(ctx, ro, a, vfs.Version{Size: 5, ModTime: time.Now()}) },
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

package sub_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/internal/layertest"
	"github.com/vfskit/vfskit/layer/sub"
	"github.com/vfskit/vfskit/vfs"
)

func TestConformance(t *testing.T) {
	layertest.Conformance(t, func(t *testing.T, inner vfs.FileSystem, dir vfs.Path) (vfs.FileSystem, vfs.Path) {
		f, err := sub.New(inner, dir)
		require.NoError(t, err)
		return f, vfs.MustPath("/t")
	})
}

// hostile are paths that try to leave the subtree.
var hostile = []string{
	"..", "../secret", "/../secret", "/root/../secret", "a/../../secret", "./../secret",
	"%2e%2e/secret", "%2E%2E%2Fsecret", "..%2fsecret", `..\secret`, `\..\secret`, `/..\..\secret`,
	"//secret", "///secret", "memory://other/secret", "s3://bucket/secret", "file:///secret",
	"/secret", "secret", "root/secret", "/./secret", "....//secret", "/a/b/../../../secret",
}

// setup returns a memory file system with /secret outside /root, and the
// view of /root (holding /inside).
func setup(t *testing.T) (vfs.FileSystem, *sub.FS, vfs.Path) {
	t.Helper()
	inner := memfs.New()
	top := vfs.MustPath(inner.URI().String())
	require.NoError(t, vfs.WriteFile(t.Context(), inner, top.Join("secret"), []byte("SECRET"), vfs.NoOverwrite))
	require.NoError(t, vfs.WriteFile(t.Context(), inner, top.Join("root", "inside"), []byte("inside"), vfs.NoOverwrite))
	view, err := sub.New(inner, top.Join("root"))
	require.NoError(t, err)
	return inner, view, top
}

// outside returns every path of inner outside /root, with its content.
func outside(t *testing.T, inner vfs.FileSystem, top vfs.Path) map[string]string {
	t.Helper()
	got := map[string]string{}
	require.NoError(t, vfs.Walk(t.Context(), inner, top, func(st vfs.FileStatus, err error) error {
		require.NoError(t, err)
		if st.Path == top.Join("root") {
			return fs.SkipDir
		}
		if !st.IsDir {
			data, err := vfs.ReadFile(t.Context(), inner, st.Path)
			require.NoError(t, err)
			got[st.Path.String()] = string(data)
		}
		return nil
	}))
	return got
}

// TestNoEscape tries every hostile path with every operation: nothing
// outside the subtree is read, changed or listed.
func TestNoEscape(t *testing.T) {
	ctx := t.Context()
	inner, view, top := setup(t)
	before := outside(t, inner, top)
	for _, raw := range hostile {
		for _, parse := range []func(string) (vfs.Path, error){vfs.NewPath, vfs.ParsePath} {
			p, err := parse(raw)
			if err != nil {
				continue
			}
			if data, err := vfs.ReadFile(ctx, view, p); err == nil {
				require.NotEqual(t, "SECRET", string(data), "%q read outside", raw)
			}
			if in, err := view.Open(ctx, p); err == nil {
				buf := make([]byte, 6)
				n, _ := in.Read(buf)
				require.NotEqual(t, "SECRET", string(buf[:n]), "%q opened outside", raw)
				require.NoError(t, in.Close())
			}
			if entries, err := view.List(ctx, p); err == nil {
				for _, e := range entries {
					require.NotEqual(t, "secret", e.Name(), "%q listed outside", raw)
				}
			}
			_ = vfs.WriteFile(ctx, view, p, []byte("pwned"), vfs.Overwrite)
			_ = view.Mkdirs(ctx, p.Join("d"))
			_, _ = vfs.CopyWithMode(ctx, view, p, view, vfs.MustPath("/inside"), vfs.Overwrite)
			_ = view.Rename(ctx, vfs.MustPath("/inside"), p)
			if ok, _ := vfs.Exists(ctx, view, p); ok {
				_ = view.Rename(ctx, p, vfs.MustPath("/inside"))
			}
			_ = view.Delete(ctx, p, true)
			require.Equal(t, before, outside(t, inner, top), "%q changed something outside the subtree", raw)
			require.NoError(t, vfs.WriteFile(ctx, inner, top.Join("root", "inside"), []byte("inside"), vfs.Overwrite))
		}
	}
}

func TestPathsAreTheViews(t *testing.T) {
	ctx := t.Context()
	_, view, top := setup(t)
	entries, err := view.List(ctx, vfs.MustPath("/"))
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.Equal(t, top.Join("inside"), entries[0].Path)
	st, err := view.Stat(ctx, vfs.MustPath("inside"))
	require.NoError(t, err)
	require.Equal(t, top.Join("inside"), st.Path)
	require.EqualValues(t, 6, st.Size)
	real, err := view.RealPath(ctx, vfs.MustPath("/inside"))
	require.NoError(t, err)
	require.Equal(t, top.Join("inside"), real)
	require.Equal(t, top.Join("root"), view.Root())

	_, err = view.Stat(ctx, vfs.MustPath("memory://other/inside"))
	require.ErrorIs(t, err, fs.ErrInvalid)
	_, err = view.Stat(ctx, vfs.MustPath("/a").Join("..", "..", "secret"))
	require.Error(t, err)
	_, err = sub.New(view, vfs.MustPath("s3://b/x"))
	require.ErrorIs(t, err, fs.ErrInvalid, "a root on another file system")
}

// FuzzNoEscape: whatever the string, a path the view accepts maps below the
// root, and nothing outside changes.
func FuzzNoEscape(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		ctx := t.Context()
		inner, view, top := setup(t)
		before := outside(t, inner, top)
		p, err := vfs.ParsePath(raw)
		if err != nil {
			return
		}
		if data, err := vfs.ReadFile(ctx, view, p); err == nil && string(data) == "SECRET" {
			t.Fatalf("%q read outside the subtree", raw)
		}
		_ = vfs.WriteFile(ctx, view, p, []byte("x"), vfs.Overwrite)
		_ = view.Delete(ctx, p, true)
		if got := outside(t, inner, top); len(got) != len(before) || got[top.Join("secret").String()] != "SECRET" {
			t.Fatalf("%q changed something outside the subtree: %v", raw, got)
		}
		for k := range outside(t, inner, top) {
			if !strings.HasSuffix(k, "/secret") {
				t.Fatalf("%q created %s outside the subtree", raw, k)
			}
		}
	})
}

package memfs_test

import (
	"context"
	"io/fs"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/internal/badinput"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

func TestRegisteredScheme(t *testing.T) {
	ctx := context.Background()
	fsys, err := vfs.Get(ctx, "memory://registered-test/a/b")
	require.NoError(t, err)
	assert.Equal(t, "memory://registered-test/", fsys.URI().String())
	assert.Equal(t, vfs.KindFileSystem, fsys.Kind())
	assert.False(t, fsys.IsDistributed())
	assert.Equal(t, vfs.MustPath("memory://registered-test/"), fsys.WorkingDirectory())
	assert.Equal(t, vfs.MustPath("memory://registered-test/"), fsys.HomeDirectory())
	assert.Contains(t, vfs.DefaultRegistry().Schemes(), "memory")
}

func TestAuthoritiesAreIndependent(t *testing.T) {
	ctx := context.Background()
	t.Cleanup(func() { memfs.Reset("indep-a"); memfs.Reset("indep-b") }) // -count=N
	a, err := vfs.Get(ctx, "memory://indep-a/")
	require.NoError(t, err)
	b, err := vfs.Get(ctx, "memory://indep-b/")
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(ctx, a, vfs.MustPath("/f"), []byte("a"), vfs.NoOverwrite))
	require.NoError(t, vfs.WriteFile(ctx, b, vfs.MustPath("/f"), []byte("b"), vfs.NoOverwrite))
	got, err := vfs.ReadFile(ctx, a, vfs.MustPath("memory://indep-a/f"))
	require.NoError(t, err)
	assert.Equal(t, "a", string(got))
	got, err = vfs.ReadFile(ctx, b, vfs.MustPath("memory://indep-b/f"))
	require.NoError(t, err)
	assert.Equal(t, "b", string(got))
	_, err = vfs.ReadFile(ctx, a, vfs.MustPath("memory://indep-b/f"))
	assert.ErrorIs(t, err, fs.ErrInvalid, "a file system refuses another authority's paths")
}

func TestSameAuthorityEverywhere(t *testing.T) {
	ctx := context.Background()
	t.Cleanup(func() { memfs.Reset("same") }) // -count=N
	viaDefault, err := vfs.Get(ctx, "memory://same/")
	require.NoError(t, err)
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register(memfs.Scheme, memfs.Factory))
	viaOther, err := reg.Get(ctx, "memory://same/x")
	require.NoError(t, err)
	viaShared, err := memfs.Shared("same")
	require.NoError(t, err)
	assert.Same(t, viaShared, viaDefault)
	assert.Same(t, viaShared, viaOther)

	require.NoError(t, vfs.WriteFile(ctx, viaOther, vfs.MustPath("/shared"), []byte("v"), vfs.NoOverwrite))
	got, err := vfs.ReadFile(ctx, viaDefault, vfs.MustPath("/shared"))
	require.NoError(t, err)
	assert.Equal(t, "v", string(got))
}

func TestFactoryUserInfoAndEmptyAuthority(t *testing.T) {
	ctx := context.Background()
	fsys, err := memfs.Factory(ctx, &url.URL{Scheme: "memory", User: url.User("u"), Host: "h", Path: "/"})
	require.NoError(t, err)
	assert.Equal(t, "memory://u@h/", fsys.URI().String())
	empty, err := vfs.Get(ctx, "memory:///x")
	require.NoError(t, err)
	assert.Equal(t, "memory:///", empty.URI().String())
	_, err = memfs.Shared("a/b")
	assert.ErrorIs(t, err, fs.ErrInvalid)
}

func TestNewIsPrivate(t *testing.T) {
	ctx := context.Background()
	a, b := memfs.New(), memfs.New()
	assert.NotEqual(t, a.URI().String(), b.URI().String())
	require.NoError(t, vfs.WriteFile(ctx, a, vfs.MustPath("/f"), []byte("a"), vfs.NoOverwrite))
	ok, err := vfs.Exists(ctx, b, vfs.MustPath("/f"))
	require.NoError(t, err)
	assert.False(t, ok)

	// Its paths reach it through the registry too.
	again, err := vfs.Get(ctx, a.URI().String())
	require.NoError(t, err)
	assert.Same(t, a, again)
}

func TestReset(t *testing.T) {
	ctx := context.Background()
	fsys, err := memfs.Shared("reset-test")
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("/d/f"), []byte("x"), vfs.NoOverwrite))
	out, err := fsys.Create(ctx, vfs.MustPath("/g"), vfs.NoOverwrite)
	require.NoError(t, err)
	memfs.Reset("reset-test")
	memfs.Reset("never-used") // no effect, no panic
	entries, err := fsys.List(ctx, vfs.MustPath("/"))
	require.NoError(t, err)
	assert.Empty(t, entries)
	assert.Error(t, out.Close(), "a stream writing during Reset cannot publish")
	entries, err = fsys.List(ctx, vfs.MustPath("/"))
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestBadInput(t *testing.T) {
	fsys := memfs.New()
	dir := vfs.MustPath(fsys.URI().String()).Join("work")
	require.NoError(t, fsys.Mkdirs(context.Background(), dir))
	badinput.Run(t, fsys, dir, vfs.MustPath("memory://someone-else/work/file"))
}

// TestDirectoryChangedDuringWrite: a file being written is published only into
// the directory it was created in. When that directory is moved, or removed and
// made again, Close fails and leaves nothing behind, neither at the old path nor
// in the moved directory (temporary files used to stay there forever).
func TestDirectoryChangedDuringWrite(t *testing.T) {
	ctx := context.Background()
	for _, change := range []struct {
		name string
		do   func(fsys vfs.FileSystem, dir vfs.Path) error
	}{
		{"moved", func(fsys vfs.FileSystem, dir vfs.Path) error {
			return fsys.Rename(ctx, dir, dir.Parent().Join("moved"))
		}},
		{"recreated", func(fsys vfs.FileSystem, dir vfs.Path) error {
			if err := fsys.Delete(ctx, dir, true); err != nil {
				return err
			}
			return fsys.Mkdirs(ctx, dir)
		}},
	} {
		t.Run(change.name, func(t *testing.T) {
			fsys := memfs.New()
			root := vfs.MustPath(fsys.URI().String())
			dir := root.Join("d")
			out, err := fsys.Create(ctx, dir.Join("f"), vfs.NoOverwrite)
			require.NoError(t, err)
			_, err = out.Write([]byte("data"))
			require.NoError(t, err)
			require.NoError(t, change.do(fsys, dir))
			err = out.Close()
			require.ErrorIs(t, err, fs.ErrNotExist)
			assert.Contains(t, err.Error(), "while the file was being written")
			var names []string
			require.NoError(t, vfs.Walk(ctx, fsys, root, func(st vfs.FileStatus, err error) error {
				names = append(names, st.Path.Path())
				return err
			}))
			want := []string{"/", "/d"}
			if change.name == "moved" {
				want = []string{"/", "/moved"}
			}
			assert.Equal(t, want, names, "nothing was published anywhere")
		})
	}
}

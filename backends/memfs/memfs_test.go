package memfs_test

import (
	"context"
	"io/fs"
	"net/url"
	"runtime"
	"strconv"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/backends/internal/badinput"
	"github.com/vfskit/vfskit/backends/internal/rwtest"
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
		{"parent moved", func(fsys vfs.FileSystem, dir vfs.Path) error {
			return fsys.Rename(ctx, dir.Parent(), dir.Parent().Parent().Join("moved"))
		}},
	} {
		t.Run(change.name, func(t *testing.T) {
			fsys := memfs.New()
			root := vfs.MustPath(fsys.URI().String())
			dir := root.Join("d")
			if change.name == "parent moved" {
				dir = root.Join("p", "d")
			}
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
			want := map[string][]string{
				"moved":        {"/", "/moved"},
				"recreated":    {"/", "/d"},
				"parent moved": {"/", "/moved", "/moved/d"},
			}[change.name]
			assert.Equal(t, want, names, "nothing was published anywhere")
		})
	}
}

// TestUnrelatedChangesDuringWrite: renames and deletes elsewhere while a file is
// being written (which make Close check its directory again) do not stop it
// from being published where it was created.
func TestUnrelatedChangesDuringWrite(t *testing.T) {
	ctx := context.Background()
	fsys := memfs.New()
	root := vfs.MustPath(fsys.URI().String())
	p := root.Join("a", "b", "f")
	require.NoError(t, vfs.WriteFile(ctx, fsys, root.Join("x", "y"), []byte("y"), vfs.NoOverwrite))
	out, err := fsys.Create(ctx, p, vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write([]byte("data"))
	require.NoError(t, err)
	require.NoError(t, fsys.Rename(ctx, root.Join("x"), root.Join("z")))
	require.NoError(t, fsys.Delete(ctx, root.Join("z"), true))
	require.NoError(t, out.Close())
	got, err := vfs.ReadFile(ctx, fsys, p)
	require.NoError(t, err)
	assert.Equal(t, "data", string(got))
}

// TestSmallFileAllocations: creating, writing, closing and then stating a small
// file costs three allocations (the stream, the file with its handle, its
// contents), also under a context that can be cancelled (no per-stream
// context.AfterFunc: a hidden file has nothing to clean up), and about 1.5 KiB
// for 1 KiB of contents (the stream 176 bytes, the file 224, the growing directory's
// map entry; 1.6 KiB before the stream and the file were made smaller).
func TestSmallFileAllocations(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fsys := memfs.New()
	const runs = 200
	paths := make([]vfs.Path, runs+1)
	for i := range paths {
		paths[i] = vfs.MustPath(fsys.URI().String()).Join("d", "f"+strconv.Itoa(i))
	}
	require.NoError(t, fsys.Mkdirs(ctx, paths[0].Parent()))
	data := make([]byte, 1<<10)
	small := func(p vfs.Path) { // create, write, close, stat
		out, err := fsys.Create(ctx, p, vfs.NoOverwrite)
		require.NoError(t, err)
		_, err = out.Write(data)
		require.NoError(t, err)
		require.NoError(t, out.Close())
		st, err := fsys.Stat(ctx, p)
		require.NoError(t, err)
		if st.Size != int64(len(data)) { // require.Equal would allocate
			t.Fatalf("Stat(%s).Size = %d, want %d", p, st.Size, len(data))
		}
	}
	i := 0
	allocs := testing.AllocsPerRun(runs, func() {
		small(paths[i])
		i++
	})
	assert.LessOrEqual(t, allocs, 3.0, "allocations per small file")

	const files = 4000
	more := make([]vfs.Path, files)
	for i := range more {
		more[i] = paths[0].Parent().Join("g" + strconv.Itoa(i))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, p := range more {
		small(p)
	}
	runtime.ReadMemStats(&after)
	perFile := float64(after.TotalAlloc-before.TotalAlloc) / files
	assert.LessOrEqual(t, perFile, 1550.0, "bytes allocated per small file of 1 KiB (about 1,640 before)")
	t.Logf("%.0f bytes allocated per file of 1 KiB", perFile)
}

// TestInProgressFilesAreHiddenFromListings: a persisted stream's in-progress
// file is not listed; a user's .vfskit-inprogress-notes.txt is.
func TestInProgressFilesAreHiddenFromListings(t *testing.T) {
	fsys := memfs.New()
	rwtest.RequireTempsHidden(t, fsys, vfs.MustPath("/d"), aferofs.InProgressPrefix+"notes.txt", aferofs.IsInProgressName, func() []string {
		names, err := afero.ReadDir(fsys.Afero(), "/d")
		require.NoError(t, err)
		var out []string
		for _, fi := range names {
			out = append(out, fi.Name())
		}
		return out
	})
}

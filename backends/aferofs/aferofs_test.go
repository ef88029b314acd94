package aferofs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/backends/internal/badinput"
	"github.com/vfskit/vfskit/vfs"
)

func newMem(t *testing.T) (*aferofs.FileSystem, afero.Fs) {
	t.Helper()
	afs := afero.NewMemMapFs()
	fsys, err := aferofs.New(afs, aferofs.Options{Scheme: "test", Authority: "a"})
	require.NoError(t, err)
	return fsys, afs
}

func write(t *testing.T, fsys vfs.FileSystem, p string, data string) {
	t.Helper()
	require.NoError(t, vfs.WriteFile(context.Background(), fsys, vfs.MustPath(p), []byte(data), vfs.NoOverwrite))
}

func read(t *testing.T, fsys vfs.FileSystem, p string) string {
	t.Helper()
	b, err := vfs.ReadFile(context.Background(), fsys, vfs.MustPath(p))
	require.NoError(t, err)
	return string(b)
}

// aferoNames lists every name in afs, temporary files included.
func aferoNames(t *testing.T, afs afero.Fs) []string {
	t.Helper()
	var names []string
	require.NoError(t, afero.Walk(afs, "/", func(p string, _ os.FileInfo, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while walking: a cancellation cleans up concurrently
		}
		names = append(names, p)
		return err
	}))
	return names
}

func TestNewValidatesOptions(t *testing.T) {
	afs := afero.NewMemMapFs()
	for _, tc := range []struct {
		name string
		afs  afero.Fs
		opts aferofs.Options
		want string
	}{
		{"nil fs", nil, aferofs.Options{Scheme: "x"}, "nil afero.Fs"},
		{"empty scheme", afs, aferofs.Options{}, "empty scheme"},
		{"bad scheme", afs, aferofs.Options{Scheme: "1 x"}, "1 x"},
		{"slash in authority", afs, aferofs.Options{Scheme: "x", Authority: "a/b"}, `"a/b"`},
		{"relative working dir", afs, aferofs.Options{Scheme: "xx", WorkingDirectory: "rel"}, `"rel"`},
		{"home with scheme", afs, aferofs.Options{Scheme: "xx", HomeDirectory: "yy:///h"}, `"yy:///h"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys, err := aferofs.New(tc.afs, tc.opts)
			require.Error(t, err)
			assert.Nil(t, fsys)
			assert.ErrorIs(t, err, fs.ErrInvalid)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestIdentity(t *testing.T) {
	fsys, err := aferofs.New(afero.NewMemMapFs(), aferofs.Options{
		Scheme: "SFTP", Authority: "user@host:22", Kind: vfs.KindObjectStore, Distributed: true,
		WorkingDirectory: "/work", HomeDirectory: "/home/u",
	})
	require.NoError(t, err)
	assert.Equal(t, "sftp://user@host:22/", fsys.URI().String())
	assert.Equal(t, vfs.MustPath("sftp://user@host:22/work"), fsys.WorkingDirectory())
	assert.Equal(t, vfs.MustPath("sftp://user@host:22/home/u"), fsys.HomeDirectory())
	assert.Equal(t, vfs.KindObjectStore, fsys.Kind())
	assert.True(t, fsys.IsDistributed())
	fsys.URI().Path = "/changed"
	assert.Equal(t, "/", fsys.URI().Path, "URI returns a copy")

	// Relative paths resolve against the working directory.
	write(t, fsys, "rel/f", "x")
	assert.Equal(t, "x", read(t, fsys, "/work/rel/f"))
}

func TestGetwdAndDefaultHome(t *testing.T) {
	wd := "/one"
	fsys, err := aferofs.New(afero.NewMemMapFs(), aferofs.Options{
		Scheme: "xx", Getwd: func() (string, error) { return wd, nil },
	})
	require.NoError(t, err)
	assert.Equal(t, vfs.MustPath("xx:///one"), fsys.WorkingDirectory())
	wd = "/two"
	assert.Equal(t, vfs.MustPath("xx:///two"), fsys.HomeDirectory(), "home defaults to the working directory")
}

func TestFileInvisibleUntilClose(t *testing.T) {
	ctx := context.Background()
	fsys, afs := newMem(t)
	out, err := fsys.Create(ctx, vfs.MustPath("/d/f"), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write([]byte("hello"))
	require.NoError(t, err)
	assert.Equal(t, int64(5), out.Pos())
	require.NoError(t, out.Flush())
	require.NoError(t, out.Sync())

	_, err = fsys.Stat(ctx, vfs.MustPath("/d/f"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	entries, err := fsys.List(ctx, vfs.MustPath("/d"))
	require.NoError(t, err)
	assert.Empty(t, entries, "the temporary file is hidden")
	assert.Len(t, aferoNames(t, afs), 3, "/, /d and the temporary file")

	require.NoError(t, out.Close())
	assert.Equal(t, "hello", read(t, fsys, "/d/f"))
	assert.Equal(t, []string{"/", "/d", "/d/f"}, aferoNames(t, afs), "no temporary file left")
	assert.NoError(t, out.Close(), "closing a published stream again is fine")
	_, err = out.Write([]byte("x"))
	assert.ErrorIs(t, err, fs.ErrClosed)
}

func TestDiscardedWritesLeaveNothing(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		discard func(out vfs.OutputStream, cancel context.CancelFunc) error
		want    error
	}{
		{"abort", func(out vfs.OutputStream, _ context.CancelFunc) error {
			require.NoError(t, out.(vfs.Aborter).Abort())
			return out.Close()
		}, fs.ErrClosed},
		{"cancel then close", func(out vfs.OutputStream, cancel context.CancelFunc) error {
			cancel()
			return out.Close()
		}, context.Canceled},
		{"cancel then write", func(out vfs.OutputStream, cancel context.CancelFunc) error {
			cancel()
			_, err := out.Write([]byte("more"))
			return err
		}, context.Canceled},
		{"cancel only", func(_ vfs.OutputStream, cancel context.CancelFunc) error {
			cancel()
			return context.Canceled // the AfterFunc cleans up without any further call
		}, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys, afs := newMem(t)
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			out, err := fsys.Create(cctx, vfs.MustPath("/d/f"), vfs.Overwrite)
			require.NoError(t, err)
			_, err = out.Write([]byte("partial"))
			require.NoError(t, err)
			err = tc.discard(out, cancel)
			require.ErrorIs(t, err, tc.want)
			// The cancellation cleans up in its own goroutine: wait (bounded) for it.
			// The loop ends as soon as it has; the bound is generous so that a
			// loaded machine (-race, 2 cores) does not fail the test.
			for i := 0; i < 30000 && len(aferoNames(t, afs)) != 2; i++ {
				time.Sleep(time.Millisecond)
			}
			assert.Equal(t, []string{"/", "/d"}, aferoNames(t, afs), "neither the file nor its temporary file exists")
			assert.Error(t, out.Close(), "a discarded stream never publishes")
			_, err = fsys.Stat(ctx, vfs.MustPath("/d/f"))
			assert.ErrorIs(t, err, fs.ErrNotExist)
		})
	}
}

// failingFs fails every write to a file after limit bytes.
type failingFs struct {
	afero.Fs
	limit int
}

type failingFile struct {
	afero.File
	left int
}

var errDiskFull = errors.New("disk full")

func (f failingFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	file, err := f.Fs.OpenFile(name, flag, perm)
	if err != nil || flag&os.O_CREATE == 0 {
		return file, err
	}
	return &failingFile{File: file, left: f.limit}, nil
}

func (f *failingFile) Write(b []byte) (int, error) {
	if len(b) > f.left {
		n, _ := f.File.Write(b[:f.left])
		f.left = 0
		return n, &fs.PathError{Op: "write", Path: f.Name(), Err: errDiskFull}
	}
	f.left -= len(b)
	return f.File.Write(b)
}

func TestFailedWriteLeavesNothing(t *testing.T) {
	ctx := context.Background()
	for _, buffered := range []int{0, 16} {
		t.Run(fmt.Sprintf("buffer=%d", buffered), func(t *testing.T) {
			mem := afero.NewMemMapFs()
			fsys, err := aferofs.New(failingFs{Fs: mem, limit: 10}, aferofs.Options{Scheme: "test", BufferSize: buffered})
			require.NoError(t, err)
			out, err := fsys.Create(ctx, vfs.MustPath("/f"), vfs.NoOverwrite)
			require.NoError(t, err)
			var werr error
			for i := 0; i < 10 && werr == nil; i++ {
				_, werr = out.Write([]byte("0123456789"))
			}
			if werr == nil {
				werr = out.Flush()
			}
			require.ErrorIs(t, werr, errDiskFull)
			assert.Contains(t, werr.Error(), "test:///f", "the error names the vfs path")
			assert.NotContains(t, werr.Error(), ".vfskit-tmp-", "the error does not name the temporary file")
			assert.ErrorIs(t, out.Close(), errDiskFull)
			assert.Equal(t, []string{"/"}, aferoNames(t, mem))
		})
	}
}

func TestNoOverwriteRaceOneWinner(t *testing.T) {
	ctx := context.Background()
	fsys, _ := newMem(t)
	p := vfs.MustPath("/f")
	a, err := fsys.Create(ctx, p, vfs.NoOverwrite)
	require.NoError(t, err)
	b, err := fsys.Create(ctx, p, vfs.NoOverwrite)
	require.NoError(t, err)
	_, _ = a.Write([]byte("a"))
	_, _ = b.Write([]byte("b"))
	require.NoError(t, a.Close())
	err = b.Close()
	require.ErrorIs(t, err, fs.ErrExist)
	assert.Contains(t, err.Error(), "test://a/f")
	assert.Equal(t, "a", read(t, fsys, "/f"), "the loser never clobbers the winner")

	_, err = fsys.Create(ctx, p, vfs.NoOverwrite)
	assert.ErrorIs(t, err, fs.ErrExist, "an existing target fails already at Create")
	c, err := fsys.Create(ctx, p, vfs.Overwrite)
	require.NoError(t, err)
	_, _ = c.Write([]byte("c"))
	require.NoError(t, c.Close())
	assert.Equal(t, "c", read(t, fsys, "/f"))
}

func TestRenameNoReplaceHook(t *testing.T) {
	ctx := context.Background()
	var calls []string
	hookErr := errors.ErrUnsupported
	afs := afero.NewMemMapFs()
	fsys, err := aferofs.New(afs, aferofs.Options{Scheme: "test", RenameNoReplace: func(o, n string) error {
		calls = append(calls, n)
		if hookErr != nil {
			return hookErr
		}
		return afs.Rename(o, n)
	}})
	require.NoError(t, err)

	write(t, fsys, "/a", "1") // hook unsupported: the engine falls back
	assert.Equal(t, "1", read(t, fsys, "/a"))
	hookErr = nil
	require.NoError(t, fsys.Rename(ctx, vfs.MustPath("/a"), vfs.MustPath("/b")))
	assert.Equal(t, []string{"/a", "/b"}, calls)

	hookErr = &os.LinkError{Op: "renameat2", Old: "x", New: "/c", Err: fs.ErrExist}
	err = vfs.WriteFile(ctx, fsys, vfs.MustPath("/c"), []byte("2"), vfs.NoOverwrite)
	require.ErrorIs(t, err, fs.ErrExist, "the hook's verdict is final")
	ok, err := vfs.Exists(ctx, fsys, vfs.MustPath("/c"))
	require.NoError(t, err)
	assert.False(t, ok)
	entries, err := afero.ReadDir(afs, "/")
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only /b; the temporary file is gone")
}

func TestListSortedAndFile(t *testing.T) {
	ctx := context.Background()
	fsys, _ := newMem(t)
	for _, n := range []string{"c", "a", "B", "b/x", "é", "a b"} {
		write(t, fsys, "/d/"+n, n)
	}
	entries, err := fsys.List(ctx, vfs.MustPath("/d"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		assert.Equal(t, "test://a/d/"+e.Name(), e.Path.String())
	}
	assert.Equal(t, []string{"B", "a", "a b", "b", "c", "é"}, names)
	assert.True(t, entries[3].IsDir)
	assert.Zero(t, entries[3].Size)
	assert.Equal(t, int64(1), entries[0].Size)

	file, err := fsys.List(ctx, vfs.MustPath("/d/a b"))
	require.NoError(t, err)
	require.Len(t, file, 1)
	assert.Equal(t, vfs.MustPath("test://a/d/a b"), file[0].Path)
	assert.Equal(t, int64(3), file[0].Size)
}

func TestInputStreamSemantics(t *testing.T) {
	ctx := context.Background()
	fsys, _ := newMem(t)
	write(t, fsys, "/f", "0123456789")
	in, err := fsys.Open(ctx, vfs.MustPath("/f"))
	require.NoError(t, err)
	defer in.Close()

	buf := make([]byte, 4)
	n, err := in.ReadAt(buf, 8)
	assert.Equal(t, 2, n)
	assert.Equal(t, io.EOF, err, "a short ReadAt returns io.EOF")
	n, err = in.ReadAt(buf, 20)
	assert.Equal(t, 0, n)
	assert.Equal(t, io.EOF, err, "ReadAt past the end returns io.EOF")
	_, err = in.ReadAt(buf, -1)
	assert.ErrorIs(t, err, fs.ErrInvalid)

	n, err = in.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "0123", string(buf[:n]), "ReadAt did not move the offset")
	pos, err := in.Seek(-3, io.SeekEnd)
	require.NoError(t, err)
	assert.Equal(t, int64(7), pos)
	rest, err := io.ReadAll(in)
	require.NoError(t, err)
	assert.Equal(t, "789", string(rest))
	pos, err = in.Seek(100, io.SeekStart)
	require.NoError(t, err)
	assert.Equal(t, int64(100), pos)
	n, err = in.Read(buf)
	assert.Equal(t, 0, n)
	assert.Equal(t, io.EOF, err, "Read past the end returns io.EOF")
	_, err = in.Seek(-200, io.SeekCurrent)
	assert.ErrorIs(t, err, fs.ErrInvalid)
	_, err = in.Seek(0, 7)
	assert.ErrorIs(t, err, fs.ErrInvalid)

	require.NoError(t, in.Close())
	assert.ErrorIs(t, in.Close(), fs.ErrClosed)
	_, err = in.Read(buf)
	assert.ErrorIs(t, err, fs.ErrClosed)
}

func TestOpenSeesSnapshot(t *testing.T) {
	ctx := context.Background()
	fsys, _ := newMem(t)
	write(t, fsys, "/f", "old")
	in, err := fsys.Open(ctx, vfs.MustPath("/f"))
	require.NoError(t, err)
	defer in.Close()
	require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("/f"), []byte("new!"), vfs.Overwrite))
	b, err := io.ReadAll(in)
	require.NoError(t, err)
	assert.Equal(t, "old", string(b))
	assert.Equal(t, "new!", read(t, fsys, "/f"))
}

func TestRenameMovesWholeTree(t *testing.T) {
	ctx := context.Background()
	fsys, afs := newMem(t)
	for _, n := range []string{"/src/a", "/src/sub/b", "/src/sub/deeper/c", "/srcx"} {
		write(t, fsys, n, n)
	}
	require.NoError(t, fsys.Rename(ctx, vfs.MustPath("/src"), vfs.MustPath("/new/parent/dst")))
	for _, n := range []string{"/src/a", "/src/sub/b", "/src/sub/deeper/c"} {
		assert.Equal(t, n, read(t, fsys, "/new/parent/dst"+strings.TrimPrefix(n, "/src")))
	}
	ok, err := vfs.Exists(ctx, fsys, vfs.MustPath("/src"))
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, "/srcx", read(t, fsys, "/srcx"), "a sibling sharing the prefix stays")
	assert.Equal(t, []string{"/", "/new", "/new/parent", "/new/parent/dst", "/new/parent/dst/a",
		"/new/parent/dst/sub", "/new/parent/dst/sub/b", "/new/parent/dst/sub/deeper",
		"/new/parent/dst/sub/deeper/c", "/srcx"}, aferoNames(t, afs))
	entries, err := fsys.List(ctx, vfs.MustPath("/new/parent/dst/sub"))
	require.NoError(t, err)
	require.Len(t, entries, 2)
	assert.Equal(t, "b", entries[0].Name())
	assert.Equal(t, "deeper", entries[1].Name())
}

func TestDeleteRoot(t *testing.T) {
	ctx := context.Background()
	fsys, _ := newMem(t)
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/"), true), "an empty root is fine")
	write(t, fsys, "/f", "x")
	assert.ErrorIs(t, fsys.Delete(ctx, vfs.MustPath("/"), false), vfs.ErrDirNotEmpty)
	assert.ErrorIs(t, fsys.Delete(ctx, vfs.MustPath("/"), true), fs.ErrInvalid)
	assert.Equal(t, "x", read(t, fsys, "/f"))
}

// TestNoClear guards against a method that empties the whole file system: on
// the local backend it removed everything under "/". memfs.Reset empties a
// memory:// authority without it.
func TestNoClear(t *testing.T) {
	typ := reflect.TypeFor[*aferofs.FileSystem]()
	for i := range typ.NumMethod() {
		assert.NotContains(t, []string{"Clear", "Reset", "RemoveAll", "Wipe"}, typ.Method(i).Name)
	}
}

func TestDeleteDirWithOnlyTemporaryFiles(t *testing.T) {
	ctx := context.Background()
	fsys, _ := newMem(t)
	out, err := fsys.Create(ctx, vfs.MustPath("/d/f"), vfs.NoOverwrite)
	require.NoError(t, err)
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/d"), false), "a directory with only in-flight files is empty")
	assert.Error(t, out.Close(), "its stream can no longer publish")
	ok, err := vfs.Exists(ctx, fsys, vfs.MustPath("/d"))
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestCanceledContextFailsEveryOperation(t *testing.T) {
	fsys, _ := newMem(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := vfs.MustPath("/x")
	_, err := fsys.Stat(ctx, p)
	assert.ErrorIs(t, err, context.Canceled)
	_, err = fsys.List(ctx, p)
	assert.ErrorIs(t, err, context.Canceled)
	_, err = fsys.Open(ctx, p)
	assert.ErrorIs(t, err, context.Canceled)
	_, err = fsys.Create(ctx, p, vfs.NoOverwrite)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, fsys.Mkdirs(ctx, p), context.Canceled)
	assert.ErrorIs(t, fsys.Delete(ctx, p, true), context.Canceled)
	assert.ErrorIs(t, fsys.Rename(ctx, p, vfs.MustPath("/y")), context.Canceled)
}

func TestBadInput(t *testing.T) {
	fsys, _ := newMem(t)
	dir := vfs.MustPath("test://a/work")
	require.NoError(t, fsys.Mkdirs(context.Background(), dir))
	t.Run("other scheme", func(t *testing.T) { badinput.Run(t, fsys, dir, vfs.MustPath("other://a/work/file")) })
	require.NoError(t, fsys.Delete(context.Background(), dir, true))
	require.NoError(t, fsys.Mkdirs(context.Background(), dir))
	t.Run("other authority", func(t *testing.T) { badinput.Run(t, fsys, dir, vfs.MustPath("test://b/work/file")) })
}

func TestAuthorityWithUserInfo(t *testing.T) {
	ctx := context.Background()
	fsys, err := aferofs.New(afero.NewMemMapFs(), aferofs.Options{Scheme: "xx", Authority: "u:pw@host"})
	require.NoError(t, err)
	p := vfs.MustPath("xx://u:pw@host/a")
	require.NoError(t, vfs.WriteFile(ctx, fsys, p, []byte("x"), vfs.NoOverwrite))
	st, err := fsys.Stat(ctx, p)
	require.NoError(t, err, "a path with the file system's own user info belongs to it")
	assert.Equal(t, p, st.Path)
	assert.Equal(t, "u", fsys.URI().User.Username())
	assert.Equal(t, "host", fsys.URI().Host)
}

// TestQualifyFastPath checks that the shortcut for paths already qualified for
// the file system keeps every rule of vfs.Qualify: a leading "/C:" is a drive
// (a relative path) only where the scheme has drives, another scheme or
// authority is refused, and reserved names stay reserved.
func TestQualifyFastPath(t *testing.T) {
	ctx := context.Background()
	mem, err := aferofs.New(afero.NewMemMapFs(), aferofs.Options{Scheme: "mem", Authority: "a"})
	require.NoError(t, err)
	write(t, mem, "mem://a/C:x", "plain name")
	st, err := mem.Stat(ctx, vfs.MustPath("mem://a/C:x"))
	require.NoError(t, err, `"/C:x" is an absolute name where the scheme has no drives`)
	assert.Equal(t, "mem://a/C:x", st.Path.String())

	file, err := aferofs.New(afero.NewMemMapFs(), aferofs.Options{Scheme: "file"})
	require.NoError(t, err)
	for _, p := range []string{"file:///C:x", "/C:x"} {
		_, err = file.Stat(ctx, vfs.MustPath(p))
		require.ErrorIs(t, err, fs.ErrInvalid, "%s: a drive-relative path does not resolve on file://", p)
	}
	write(t, file, "file:///C:/x", "drive")
	assert.Equal(t, "drive", read(t, file, "/C:/x"))

	for _, p := range []string{"other://a/x", "mem://b/x"} {
		_, err = mem.Stat(ctx, vfs.MustPath(p))
		require.ErrorIs(t, err, fs.ErrInvalid, p)
		assert.Contains(t, err.Error(), "belongs to another file system", p)
	}
	afs := afero.NewMemMapFs()
	tmp, err := aferofs.New(afs, aferofs.Options{Scheme: "mem", Authority: "a"})
	require.NoError(t, err)
	out, temp := pendingTemp(t, tmp, afs, vfs.MustPath("mem://a/d/f"))
	defer out.Close()
	for _, p := range []string{"mem://a/d/" + temp, "/d/" + temp, "/d/" + temp + "/x"} {
		_, err = tmp.Stat(ctx, vfs.MustPath(p))
		require.ErrorIs(t, err, fs.ErrInvalid, p)
		assert.Contains(t, err.Error(), "reserved", p)
	}
	_, err = tmp.Stat(ctx, vfs.MustPath("mem://a/d/.vfskit-tmp-1"))
	require.ErrorIs(t, err, fs.ErrNotExist, "a name that only starts like a temporary one is a user's")
}

// TestCreateWhileItsContextEndsIsRaceFree: a Create whose context ends
// while it runs may start its discard at once in another goroutine; under
// -race this must not report the stream's fields as raced, and a stream whose
// context ended never publishes.
func TestCreateWhileItsContextEndsIsRaceFree(t *testing.T) {
	fsys, err := aferofs.New(afero.NewOsFs(), aferofs.Options{Scheme: "file"})
	require.NoError(t, err)
	dir := "file://" + t.TempDir()
	for i := range 300 {
		ctx, cancel := context.WithCancel(t.Context())
		go cancel()
		p := vfs.MustPath(dir).Join(fmt.Sprintf("f%d", i))
		out, err := fsys.Create(ctx, p, vfs.NoOverwrite)
		if err != nil {
			continue // refused at once: fine too
		}
		<-ctx.Done()
		_ = out.Close()
		ok, err := vfs.Exists(t.Context(), fsys, p)
		require.NoError(t, err)
		require.False(t, ok, "a stream whose context ended published %s", p)
	}
}

// TestWrittenVersionNeedsKeepAndAPublish: a stream tells the version it
// published only when asked to keep it before Close (errors.ErrUnsupported
// otherwise, and vfs.WrittenVersion then reads it back), and fails with
// fs.ErrInvalid when it published nothing.
func TestWrittenVersionNeedsKeepAndAPublish(t *testing.T) {
	ctx := context.Background()
	fsys, _ := newMem(t)
	p := vfs.MustPath("test://a/f")
	out, err := fsys.Create(ctx, p, vfs.NoOverwrite)
	require.NoError(t, err)
	require.NoError(t, out.Close())
	_, err = out.(vfs.WrittenVersioner).Version()
	require.ErrorIs(t, err, errors.ErrUnsupported)
	v, err := vfs.WrittenVersion(ctx, fsys, p, out)
	require.NoError(t, err, "read back")
	require.False(t, v.ModTime.IsZero())

	q := vfs.MustPath("test://a/g")
	out, err = fsys.Create(ctx, q, vfs.NoOverwrite)
	require.NoError(t, err)
	out.(vfs.WrittenVersioner).KeepVersion()
	write(t, fsys, q.String(), "first")
	require.ErrorIs(t, out.Close(), fs.ErrExist)
	_, err = out.(vfs.WrittenVersioner).Version()
	require.ErrorIs(t, err, fs.ErrInvalid, "nothing was published")
}

package vfs_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

var bg = context.Background()

func TestExists(t *testing.T) {
	fsys := memfs.New()
	require.NoError(t, vfs.WriteFile(bg, fsys, vfs.MustPath("/d/f"), []byte("x"), vfs.NoOverwrite))
	for p, want := range map[string]bool{"/d/f": true, "/d": true, "/": true, "/missing": false, "/d/f2": false} {
		ok, err := vfs.Exists(bg, fsys, vfs.MustPath(p))
		require.NoError(t, err, p)
		assert.Equal(t, want, ok, p)
	}
	_, err := vfs.Exists(bg, fsys, vfs.Path{})
	assert.ErrorIs(t, err, fs.ErrInvalid, "zero path is an error, not false")
}

func TestReadWriteFile(t *testing.T) {
	fsys := memfs.New()
	p := vfs.MustPath("/a/b.txt")
	require.NoError(t, vfs.WriteFile(bg, fsys, p, []byte("hello"), vfs.NoOverwrite))
	got, err := vfs.ReadFile(bg, fsys, p)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(got))

	err = vfs.WriteFile(bg, fsys, p, []byte("clobber"), vfs.NoOverwrite)
	assert.ErrorIs(t, err, fs.ErrExist)
	got, _ = vfs.ReadFile(bg, fsys, p)
	assert.Equal(t, "hello", string(got), "NoOverwrite leaves the original")

	require.NoError(t, vfs.WriteFile(bg, fsys, p, []byte("new"), vfs.Overwrite))
	got, _ = vfs.ReadFile(bg, fsys, p)
	assert.Equal(t, "new", string(got))

	_, err = vfs.ReadFile(bg, fsys, vfs.MustPath("/nope"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// fastFS counts how often the helpers take its optional fast paths.
type fastFS struct {
	layer.Base
	reads, writes, copies atomic.Int32
}

func (f *fastFS) ReadFile(ctx context.Context, p vfs.Path) ([]byte, error) {
	f.reads.Add(1)
	return f.Base.ReadFile(ctx, p)
}

func (f *fastFS) WriteFile(ctx context.Context, p vfs.Path, data []byte, mode vfs.WriteMode) error {
	f.writes.Add(1)
	return f.Base.WriteFile(ctx, p, data, mode)
}

func (f *fastFS) CopyFile(ctx context.Context, dst, src vfs.Path, mode vfs.WriteMode) (int64, error) {
	f.copies.Add(1)
	return f.Base.CopyFile(ctx, dst, src, mode)
}

func TestHelpersUseOptionalInterfaces(t *testing.T) {
	f := &fastFS{Base: layer.Base{Inner: memfs.New()}}
	p := vfs.MustPath("/x")
	require.NoError(t, vfs.WriteFile(bg, f, p, []byte("data"), vfs.NoOverwrite))
	_, err := vfs.ReadFile(bg, f, p)
	require.NoError(t, err)
	n, err := vfs.Copy(bg, f, vfs.MustPath("/y"), f, p)
	require.NoError(t, err)
	assert.Equal(t, int64(4), n)
	assert.Equal(t, int32(1), f.writes.Load())
	assert.Equal(t, int32(1), f.reads.Load())
	assert.Equal(t, int32(1), f.copies.Load(), "same file system: server-side copy")

	other := memfs.New()
	_, err = vfs.Copy(bg, f, vfs.MustPath("/z"), other, vfs.MustPath("/missing"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Equal(t, int32(1), f.copies.Load(), "different file systems stream")
}

func TestCopyAcrossFileSystems(t *testing.T) {
	src, dst := memfs.New(), memfs.New()
	data := bytes.Repeat([]byte("0123456789abcdef"), 300_000) // > the 1 MiB copy buffer
	require.NoError(t, vfs.WriteFile(bg, src, vfs.MustPath("/big"), data, vfs.NoOverwrite))
	n, err := vfs.Copy(bg, dst, vfs.MustPath("/copy/big"), src, vfs.MustPath("/big"))
	require.NoError(t, err)
	assert.Equal(t, int64(len(data)), n)
	got, err := vfs.ReadFile(bg, dst, vfs.MustPath("/copy/big"))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, got))

	require.NoError(t, vfs.WriteFile(bg, src, vfs.MustPath("/small"), []byte("s"), vfs.NoOverwrite))
	_, err = vfs.Copy(bg, dst, vfs.MustPath("/copy/big"), src, vfs.MustPath("/small"))
	assert.ErrorIs(t, err, fs.ErrExist, "Copy does not overwrite")
	_, err = vfs.CopyWithMode(bg, dst, vfs.MustPath("/copy/big"), src, vfs.MustPath("/small"), vfs.Overwrite)
	require.NoError(t, err)
	got, _ = vfs.ReadFile(bg, dst, vfs.MustPath("/copy/big"))
	assert.Equal(t, "s", string(got))
}

type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, errors.New("source broke")
	}
	k := min(len(p), r.n)
	r.n -= k
	return k, nil
}

func TestCopyFromPublishesNothingOnError(t *testing.T) {
	fsys := memfs.New()
	p := vfs.MustPath("/out/partial")
	_, err := vfs.CopyFrom(bg, fsys, p, &failingReader{n: 3 << 20}, vfs.NoOverwrite)
	require.ErrorContains(t, err, "source broke")
	ok, err := vfs.Exists(bg, fsys, p)
	require.NoError(t, err)
	assert.False(t, ok, "no partial file")
	if entries, err := fsys.List(bg, vfs.MustPath("/out")); err == nil {
		assert.Empty(t, entries, "no temporary file left behind")
	}
}

// recordingStream is an OutputStream that records how it was discarded.
type recordingStream struct {
	aborted, closed bool
}

func (s *recordingStream) Write(p []byte) (int, error) { return 0, errors.New("disk full") }
func (s *recordingStream) Close() error                { s.closed = true; return nil }
func (s *recordingStream) Pos() int64                  { return 0 }
func (s *recordingStream) Flush() error                { return nil }
func (s *recordingStream) Sync() error                 { return nil }
func (s *recordingStream) Abort() error                { s.aborted = true; return nil }

func TestDiscardAbortsCancelsAndCloses(t *testing.T) {
	s := &recordingStream{}
	ctx, cancel := context.WithCancel(bg)
	vfs.Discard(s, cancel)
	assert.True(t, s.aborted)
	assert.True(t, s.closed)
	assert.ErrorIs(t, ctx.Err(), context.Canceled)
}

func writeTree(t *testing.T, fsys vfs.FileSystem, files ...string) {
	t.Helper()
	for _, f := range files {
		require.NoError(t, vfs.WriteFile(bg, fsys, vfs.MustPath(f), []byte(f), vfs.NoOverwrite))
	}
}

func TestWalk(t *testing.T) {
	fsys := memfs.New()
	writeTree(t, fsys, "/r/b/2", "/r/a/1", "/r/a/0", "/r/c", "/r/b/x/3")
	var seen []string
	require.NoError(t, vfs.Walk(bg, fsys, vfs.MustPath("/r"), func(st vfs.FileStatus, err error) error {
		require.NoError(t, err)
		seen = append(seen, st.Path.Path())
		return nil
	}))
	assert.Equal(t, []string{"/r", "/r/a", "/r/a/0", "/r/a/1", "/r/b", "/r/b/2", "/r/b/x", "/r/b/x/3", "/r/c"}, seen)

	seen = nil
	require.NoError(t, vfs.Walk(bg, fsys, vfs.MustPath("/r"), func(st vfs.FileStatus, err error) error {
		seen = append(seen, st.Path.Path())
		switch st.Path.Path() {
		case "/r/a":
			return fs.SkipDir
		case "/r/b/2":
			return fs.SkipDir // on a file: skip the rest of its directory
		case "/r/c":
			return fs.SkipAll
		}
		return nil
	}))
	assert.Equal(t, []string{"/r", "/r/a", "/r/b", "/r/b/2", "/r/c"}, seen)

	var gotErr error
	err := vfs.Walk(bg, fsys, vfs.MustPath("/missing"), func(st vfs.FileStatus, err error) error {
		gotErr = err
		return err
	})
	assert.ErrorIs(t, gotErr, fs.ErrNotExist)
	assert.ErrorIs(t, err, fs.ErrNotExist)

	stop := errors.New("stop")
	err = vfs.Walk(bg, fsys, vfs.MustPath("/r"), func(vfs.FileStatus, error) error { return stop })
	assert.ErrorIs(t, err, stop)

	ctx, cancel := context.WithCancel(bg)
	cancel()
	assert.ErrorIs(t, vfs.Walk(ctx, fsys, vfs.MustPath("/r"), func(vfs.FileStatus, error) error { return nil }), context.Canceled)
}

func TestIOFSPassesFSTest(t *testing.T) {
	fsys := memfs.New()
	writeTree(t, fsys, "/root/hello.txt", "/root/dir/a", "/root/dir/sub/b", "/root/with space/c#?%+")
	iofs := vfs.IOFS(bg, fsys, vfs.MustPath("/root"))
	require.NoError(t, fstest.TestFS(iofs, "hello.txt", "dir/a", "dir/sub/b", "with space/c#?%+"))

	// A backslash is a character of a name, never a separator (io/fs says so), and
	// the exact route (Join) keeps it. (fstest.TestFS refuses such names in
	// listings, so this tree is apart.)
	require.NoError(t, vfs.WriteFile(bg, fsys, vfs.MustPath("/other").Join(`back\slash`), []byte("bs"), vfs.NoOverwrite))
	got, err := fs.ReadFile(vfs.IOFS(bg, fsys, vfs.MustPath("/other")), `back\slash`)
	require.NoError(t, err)
	assert.Equal(t, "bs", string(got))

	data, err := fs.ReadFile(iofs, "dir/a")
	require.NoError(t, err)
	assert.Equal(t, "/root/dir/a", string(data))

	_, err = iofs.Open("../escape")
	assert.ErrorIs(t, err, fs.ErrInvalid)
	_, err = iofs.Open("nope")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	var pe *fs.PathError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, "nope", pe.Path, "errors name the fs.FS path")
	_, err = fs.ReadDir(iofs, "hello.txt")
	assert.Error(t, err)

	f, err := iofs.Open("dir")
	require.NoError(t, err)
	_, err = f.Read(make([]byte, 1))
	assert.ErrorIs(t, err, vfs.ErrIsDir)
	require.NoError(t, f.Close())
	_, err = io.ReadAll(io.LimitReader(bytes.NewReader(nil), 1))
	require.NoError(t, err)
}

func TestQualify(t *testing.T) {
	fsys := memfs.New()
	wd := fsys.WorkingDirectory()
	q, err := vfs.Qualify("op", fsys, vfs.MustPath("rel/x"))
	require.NoError(t, err)
	assert.Equal(t, wd.Join("rel/x"), q, "relative paths resolve against the working directory")
	assert.Equal(t, fsys.URI().Scheme, q.Scheme())

	q, err = vfs.Qualify("op", fsys, vfs.MustPath("/abs"))
	require.NoError(t, err)
	assert.Equal(t, "/abs", q.Path())

	_, err = vfs.Qualify("op", fsys, vfs.MustPath("s3://bucket/x"))
	assert.ErrorIs(t, err, fs.ErrInvalid)
	assert.ErrorContains(t, err, "s3://bucket/x")
	_, err = vfs.Qualify("op", fsys, vfs.Path{})
	assert.ErrorIs(t, err, fs.ErrInvalid)
}

// relativeWD is a file system whose working directory is (wrongly) relative.
type relativeWD struct{ layer.Base }

func (relativeWD) WorkingDirectory() vfs.Path { return vfs.MustPath("not/absolute") }

func TestQualifyNeedsAnAbsoluteResult(t *testing.T) {
	fsys := &relativeWD{layer.Base{Inner: memfs.New()}}
	_, err := vfs.Qualify("op", fsys, vfs.MustPath("x"))
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrInvalid, "a relative path where an absolute one is needed")
	assert.ErrorContains(t, err, "not/absolute")
	q, err := vfs.Qualify("op", fsys, vfs.MustPath("/abs"))
	require.NoError(t, err)
	assert.Equal(t, "/abs", q.Path())
}

func TestCopyFromReusesItsBuffer(t *testing.T) {
	fsys := memfs.New()
	// No GC during the measurement: a GC empties sync.Pools, which would make the
	// numbers depend on the machine's load.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const copies = 100
	for i := range copies {
		_, err := vfs.CopyFrom(bg, fsys, vfs.MustPath("/small").Join(strconv.Itoa(i)), strings.NewReader("tiny"), vfs.NoOverwrite)
		require.NoError(t, err)
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	// Under -race, sync.Pool drops a quarter of what is put back on purpose, so
	// about 25 buffers are allocated then; without the pool it is 100.
	assert.Less(t, allocated, uint64(copies<<20)/2,
		"%d small copies allocated %d bytes: the 1 MiB copy buffer must be reused, not allocated per copy", copies, allocated)
}

// funcFS is a FileSystem whose dynamic type is not comparable.
type funcFS struct {
	vfs.FileSystem
	hook func()
}

func TestSameFileSystemNeverPanics(t *testing.T) {
	a, b := memfs.New(), memfs.New()
	fa := funcFS{FileSystem: a, hook: func() {}}
	require.True(t, vfs.SameFileSystem(a, a))
	require.True(t, vfs.SameFileSystem(fa, fa), "an uncomparable type is compared by URI")
	require.True(t, vfs.SameFileSystem(fa, a), "the same URI is the same file system")
	require.Equal(t, a.URI().String() == b.URI().String(), vfs.SameFileSystem(a, b))
	require.False(t, vfs.SameFileSystem(fa, nil))
	require.True(t, vfs.SameFileSystem(nil, nil))
}

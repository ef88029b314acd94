package vfs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// rangeFS is memory:// whose streams read ranges (vfs.RangeReader), as an
// object store's do; it records the ranges opened and can fail one.
type rangeFS struct {
	vfs.FileSystem
	mu     sync.Mutex
	opened []int64 // offsets of the ranges opened
	// at, when at least 0, makes the range at that offset go wrong: short
	// (when it returns fewer bytes than asked) or failing with ErrChanged.
	at    int64
	short bool
}

func (f *rangeFS) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	data, err := vfs.ReadFile(ctx, f.FileSystem, p)
	if err != nil {
		return nil, err
	}
	in, err := f.FileSystem.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	return &rangeStream{InputStream: in, f: f, data: data}, nil
}

type rangeStream struct {
	vfs.InputStream
	f    *rangeFS
	data []byte
}

func (s *rangeStream) ReadsRanges() bool { return true }

func (s *rangeStream) OpenRange(off, n int64) (io.ReadCloser, error) {
	s.f.mu.Lock()
	s.f.opened = append(s.f.opened, off)
	s.f.mu.Unlock()
	end := min(off+n, int64(len(s.data)))
	switch {
	case off == s.f.at && s.f.short:
		end -= 10
	case off == s.f.at:
		return nil, vfs.NewPathError("read", vfs.MustPath("/x"), vfs.ErrChanged)
	}
	return io.NopCloser(bytes.NewReader(s.data[off:end])), nil
}

// rangeSize is the size of the ranges of a copy in these tests.
const rangeSize = 64 << 10

// bigFile writes a file of 2.5 ranges and 5 bytes (three ranges) at p of a
// rangeFS over a fresh memory:// and returns its bytes. It makes the ranges
// of copies rangeSize bytes until the test ends.
func bigFile(t *testing.T, p vfs.Path) (*rangeFS, []byte) {
	t.Helper()
	t.Cleanup(vfs.SetRangeSize(rangeSize))
	fsys, _ := memfs.NewTest(t)
	data := make([]byte, 5*rangeSize/2+5)
	for i := range data {
		data[i] = byte(i*7 + i>>10)
	}
	require.NoError(t, vfs.WriteFile(bg, fsys, p, data, vfs.NoOverwrite))
	return &rangeFS{FileSystem: fsys, at: -1}, data
}

// A large file from a stream that reads ranges to a file on disk is read in
// ranges, and written whole.
func TestCopyTreeReadsRanges(t *testing.T) {
	src, data := bigFile(t, vfs.MustPath("/src/big"))
	dir := t.TempDir()
	dst := vfs.MustPath(filepath.Join(dir, "dst"))
	res, err := vfs.CopyTree(bg, local.New(), dst, src, vfs.MustPath("/src"), vfs.CopyOptions{})
	require.NoError(t, err)
	require.Len(t, res.Files, 1)
	assert.Equal(t, int64(len(data)), res.Files[0].Size)
	got, err := os.ReadFile(filepath.Join(dir, "dst", "big"))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, got), "the copy holds other bytes")
	slices.Sort(src.opened)
	assert.Equal(t, []int64{0, rangeSize, 2 * rangeSize}, src.opened)

	// Ranges: 1 reads the file as one stream.
	src.opened = nil
	_, err = vfs.CopyTree(bg, local.New(), vfs.MustPath(filepath.Join(dir, "one")), src, vfs.MustPath("/src"), vfs.CopyOptions{Ranges: 1})
	require.NoError(t, err)
	assert.Empty(t, src.opened)
	got, err = os.ReadFile(filepath.Join(dir, "one", "big"))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, got), "the copy holds other bytes")
}

// A range that fails, or ends before its end, fails the copy and publishes
// nothing: no file, no temporary file.
func TestCopyTreeRangeFailurePublishesNothing(t *testing.T) {
	for _, short := range []bool{false, true} {
		t.Run(fmt.Sprint("short=", short), func(t *testing.T) {
			src, _ := bigFile(t, vfs.MustPath("/src/big"))
			src.at, src.short = rangeSize, short
			dir := t.TempDir()
			_, err := vfs.CopyTree(bg, local.New(), vfs.MustPath(filepath.Join(dir, "big")), src, vfs.MustPath("/src/big"), vfs.CopyOptions{})
			require.ErrorIs(t, err, vfs.ErrChanged)
			left, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, left, "a failed ranged copy left files")
		})
	}
}

// syncFS is memory:// that records, as file:// would need them, the files
// created with and without a directory sync at Close and the SyncDir calls.
type syncFS struct {
	vfs.FileSystem
	mu     sync.Mutex
	events []string
}

func (f *syncFS) record(e string) {
	f.mu.Lock()
	f.events = append(f.events, e)
	f.mu.Unlock()
}

func (f *syncFS) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	f.record("create " + p.Path())
	return f.FileSystem.Create(ctx, p, mode)
}

func (f *syncFS) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := vfs.CreateUnsynced(ctx, f.FileSystem, p, mode)
	return &closeRecorder{OutputStream: out, f: f, p: p}, err
}

func (f *syncFS) SyncDir(ctx context.Context, dir vfs.Path) error {
	f.record("sync " + dir.Path())
	return vfs.SyncDir(ctx, f.FileSystem, dir)
}

type closeRecorder struct {
	vfs.OutputStream
	f *syncFS
	p vfs.Path
}

func (c *closeRecorder) Close() error {
	err := c.OutputStream.Close()
	if err == nil {
		c.f.record("published " + c.p.Path())
	}
	return err
}

// A tree copy to a file system that syncs directories (file://) publishes
// every file without a directory sync and syncs each directory that
// received files once, after its last file was published, before CopyTree
// returns.
func TestCopyTreeSyncsEachDirectoryOnce(t *testing.T) {
	src, _ := memfs.NewTest(t)
	files := map[string]string{}
	for d := range 3 {
		for i := range 5 {
			files[fmt.Sprintf("d%d/f%d", d, i)] = "x"
		}
	}
	files["top"] = "y"
	writeFiles(t, src, vfs.MustPath("/src"), files)
	back, root := memfs.NewTest(t)
	dst := &syncFS{FileSystem: back}
	_, err := vfs.CopyTree(bg, dst, vfs.MustPath("/dst"), src, vfs.MustPath("/src"), vfs.CopyOptions{})
	require.NoError(t, err)
	assert.Equal(t, files, readTree(t, back, root.Join("dst")))

	synced := map[string]int{}
	lastPublished := map[string]int{}
	for i, e := range dst.events {
		switch {
		case len(e) > 5 && e[:5] == "sync ":
			synced[e[5:]]++
			assert.Greater(t, i, lastPublished[e[5:]], "directory %s synced before its last file was published", e[5:])
		case len(e) > 10 && e[:10] == "published ":
			lastPublished[filepath.Dir(e[10:])] = i
		default:
			t.Errorf("unexpected %q: a tree copy creates files without a directory sync", e)
		}
	}
	assert.Equal(t, map[string]int{"/dst": 1, "/dst/d0": 1, "/dst/d1": 1, "/dst/d2": 1}, synced)
}

// failingSyncFS fails every SyncDir.
type failingSyncFS struct{ syncFS }

func (f *failingSyncFS) SyncDir(context.Context, vfs.Path) error {
	return vfs.NewPathError("syncdir", vfs.MustPath("/dst"), errors.New("disk on fire"))
}

// A directory sync that fails fails the copy, which is undone: a file whose
// name may not last is not reported copied.
func TestCopyTreeFailedDirectorySyncUndoes(t *testing.T) {
	src, _ := memfs.NewTest(t)
	writeFiles(t, src, vfs.MustPath("/src"), map[string]string{"a": "1", "d/b": "2"})
	back, _ := memfs.NewTest(t)
	dst := &failingSyncFS{syncFS{FileSystem: back}}
	res, err := vfs.CopyTree(bg, dst, vfs.MustPath("/dst"), src, vfs.MustPath("/src"), vfs.CopyOptions{})
	require.ErrorContains(t, err, "disk on fire")
	assert.Nil(t, res)
	_, err = back.Stat(bg, vfs.MustPath("/dst"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

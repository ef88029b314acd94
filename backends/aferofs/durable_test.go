package aferofs_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/vfs"
)

// syncRecorder is an afero.Fs that records which names were fsynced.
type syncRecorder struct {
	afero.Fs
	mu     sync.Mutex
	synced []string
}

type recordingFile struct {
	afero.File
	fs *syncRecorder
}

func (r *syncRecorder) Open(name string) (afero.File, error) {
	f, err := r.Fs.Open(name)
	if err != nil {
		return nil, err
	}
	return &recordingFile{File: f, fs: r}, nil
}

func (r *syncRecorder) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	f, err := r.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &recordingFile{File: f, fs: r}, nil
}

func (f *recordingFile) Sync() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	name := f.Name()
	if containsTemp(name) {
		name = "temp"
	}
	f.fs.synced = append(f.fs.synced, name)
	return f.File.Sync()
}

func containsTemp(name string) bool { return strings.Contains(name, ".vfskit-tmp-") }

func (r *syncRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.synced
	r.synced = nil
	return s
}

func TestDurableSyncsFileAndDirectories(t *testing.T) {
	ctx := context.Background()
	rec := &syncRecorder{Fs: afero.NewMemMapFs()}
	fsys, err := aferofs.New(rec, aferofs.Options{Scheme: "test", Durable: true})
	require.NoError(t, err)

	require.NoError(t, fsys.Mkdirs(ctx, vfs.MustPath("/a/b")))
	assert.Equal(t, []string{"/", "/a"}, rec.take(), "each new directory's parent")

	write(t, fsys, "/a/b/f", "x")
	assert.Equal(t, []string{"temp", "/a/b"}, rec.take(), "the file before publishing, its directory after")

	require.NoError(t, fsys.Rename(ctx, vfs.MustPath("/a/b/f"), vfs.MustPath("/c/g")))
	assert.Equal(t, []string{"/", "/c", "/a/b"}, rec.take(), "the new directory's parent, then both directories of the rename")

	out, err := fsys.CreateUnsynced(ctx, vfs.MustPath("/a/b/u"), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write([]byte("u"))
	require.NoError(t, err)
	require.NoError(t, out.Close())
	assert.Equal(t, []string{"temp"}, rec.take(), "CreateUnsynced: the file, not its directory")
	assert.Equal(t, "u", read(t, fsys, "/a/b/u"), "published at Close")
	require.NoError(t, fsys.SyncDir(ctx, vfs.MustPath("/a/b")))
	assert.Equal(t, []string{"/a/b"}, rec.take(), "SyncDir")
	assert.ErrorIs(t, fsys.SyncDir(ctx, vfs.MustPath("/missing")), fs.ErrNotExist)
	assert.ErrorIs(t, fsys.SyncDir(ctx, vfs.MustPath("/a/b/u")), vfs.ErrNotDir)
	assert.Empty(t, rec.take(), "a failed SyncDir syncs nothing")

	nondurable, err := aferofs.New(rec, aferofs.Options{Scheme: "test"})
	require.NoError(t, err)
	write(t, nondurable, "/d/h", "y")
	require.NoError(t, nondurable.SyncDir(ctx, vfs.MustPath("/d")))
	assert.Empty(t, rec.take(), "without Durable nothing is fsynced")
}

// Many goroutines race NoOverwrite on one path of one FileSystem without a
// RenameNoReplace hook: the engine's lock lets exactly one win.
func TestNoOverwriteRaceUnderEngineLock(t *testing.T) {
	const writers = 8
	ctx := context.Background()
	fsys, _ := newMem(t)
	p := vfs.MustPath("/target")
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = vfs.WriteFile(ctx, fsys, p, []byte{byte('a' + i)}, vfs.NoOverwrite)
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		if err == nil {
			wins++
		} else {
			assert.True(t, errors.Is(err, fs.ErrExist), "%v", err)
		}
	}
	assert.Equal(t, 1, wins)
	entries, err := fsys.List(ctx, vfs.MustPath("/"))
	require.NoError(t, err)
	assert.Len(t, entries, 1)
}

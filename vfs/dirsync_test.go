package vfs_test

import (
	"context"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// countingFS counts the Stat calls that reach memfs, to tell which helper
// sends a request.
type countingFS struct {
	vfs.FileSystem
	stats int
}

func (c *countingFS) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	c.stats++
	return c.FileSystem.Stat(ctx, p)
}

// syncingFS is a vfs.DirSyncer that records what the helpers hand it.
type syncingFS struct {
	vfs.FileSystem
	unsynced []vfs.Path
	synced   []vfs.Path
}

func (s *syncingFS) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	s.unsynced = append(s.unsynced, p)
	return s.Create(ctx, p, mode)
}

func (s *syncingFS) SyncDir(_ context.Context, dir vfs.Path) error {
	s.synced = append(s.synced, dir)
	return nil
}

func TestCreateUnsyncedAndSyncDirWithoutDirSyncer(t *testing.T) {
	ctx := context.Background()
	fsys := &countingFS{FileSystem: memfs.New()}
	p := vfs.MustPath("/d/f")
	out, err := vfs.CreateUnsynced(ctx, fsys, p, vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write([]byte("abc"))
	require.NoError(t, err)
	require.NoError(t, out.Close())
	got, err := vfs.ReadFile(ctx, fsys.FileSystem, p)
	require.NoError(t, err)
	assert.Equal(t, "abc", string(got), "Create wrote the file")

	fsys.stats = 0
	require.NoError(t, vfs.SyncDir(ctx, fsys, vfs.MustPath("/d")))
	require.NoError(t, vfs.SyncDir(ctx, fsys, vfs.MustPath("/missing")))
	assert.Zero(t, fsys.stats, "nothing to sync: no request")
}

func TestCreateUnsyncedAndSyncDirWithDirSyncer(t *testing.T) {
	ctx := context.Background()
	fsys := &syncingFS{FileSystem: memfs.New()}
	p := vfs.MustPath("/d/f")
	out, err := vfs.CreateUnsynced(ctx, fsys, p, vfs.NoOverwrite)
	require.NoError(t, err)
	require.NoError(t, out.Close())
	require.NoError(t, vfs.SyncDir(ctx, fsys, p.Parent()))
	assert.Equal(t, []vfs.Path{p}, fsys.unsynced)
	assert.Equal(t, []vfs.Path{p.Parent()}, fsys.synced)
}

// CleanTempBefore without TempCleaner Stats dir; RealPath without RealPathFS
// qualifies.
func TestCleanTempBeforeAndRealPathFallbacks(t *testing.T) {
	ctx := context.Background()
	fsys := &countingFS{FileSystem: memfs.New()}
	require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("/d/f"), []byte("x"), vfs.NoOverwrite))
	removed, err := vfs.CleanTempBefore(ctx, fsys, vfs.MustPath("/d"), time.Now(), false)
	require.NoError(t, err)
	assert.Empty(t, removed)
	_, err = vfs.CleanTempBefore(ctx, fsys, vfs.MustPath("/missing"), time.Now(), true)
	assert.ErrorIs(t, err, fs.ErrNotExist)

	rp, err := vfs.RealPath(ctx, fsys, vfs.MustPath("/d/f"))
	require.NoError(t, err)
	assert.Equal(t, vfs.MustPath("/d/f").MakeQualified(fsys), rp)
	_, err = vfs.RealPath(ctx, fsys, vfs.Path{})
	assert.ErrorIs(t, err, fs.ErrInvalid)
}

// IsSymlink is false without RealPathFS, for the root and for a missing path.
func TestIsSymlinkWithoutLinks(t *testing.T) {
	ctx := context.Background()
	fsys := memfs.New()
	require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("/d/f"), []byte("x"), vfs.NoOverwrite))
	for _, p := range []string{"/", "/d", "/d/f", "/missing"} {
		link, err := vfs.IsSymlink(ctx, fsys, vfs.MustPath(p))
		require.NoError(t, err, p)
		assert.False(t, link, p)
	}
}

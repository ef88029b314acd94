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

// A file system without temporary files (here memfs hidden behind a plain
// wrapper) has nothing to clean, but a missing directory is still an error.
func TestCleanTempWithoutTempCleaner(t *testing.T) {
	ctx := context.Background()
	fsys := struct{ vfs.FileSystem }{memfs.New()}
	dir := vfs.MustPath("/d")
	require.NoError(t, vfs.WriteFile(ctx, fsys, dir.Join("f"), []byte("x"), vfs.NoOverwrite))
	removed, err := vfs.CleanTemp(ctx, fsys, dir, time.Hour)
	require.NoError(t, err)
	assert.Empty(t, removed)
	_, err = vfs.FindTemp(ctx, fsys, vfs.MustPath("/missing"), time.Hour)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = vfs.CleanTemp(ctx, fsys, dir, -time.Minute)
	assert.ErrorIs(t, err, fs.ErrInvalid)
	assert.ErrorContains(t, err, "-1m0s is negative")
	_, err = vfs.CleanTemp(ctx, fsys, vfs.MustPath("memory://u:hunter2@h/d"), -time.Minute)
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.NotContains(t, err.Error(), "hunter2", "the path in the error is redacted")
}

package local_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/vfs"
)

// TestDeleteVersionRefusesAFileRewrittenInPlace: a file rewritten through
// the same inode with the same size (only its modification time tells) is
// kept, byte for byte, and nothing else is left in its directory.
func TestDeleteVersionRefusesAFileRewrittenInPlace(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(name, []byte("version one"), 0o644))
	fsys := local.New()
	p := vfs.MustPath(name)
	v, err := vfs.StreamVersion(ctx, fsys, p, mustOpen(t, fsys, p))
	require.NoError(t, err)
	require.NotEmpty(t, v.ID, "file:// tells the device and inode")

	f, err := os.OpenFile(name, os.O_WRONLY, 0) // same inode, same size
	require.NoError(t, err)
	_, err = f.WriteAt([]byte("version two"), 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	later := v.ModTime.Add(time.Second)
	require.NoError(t, os.Chtimes(name, later, later))

	err = vfs.DeleteVersion(ctx, fsys, p, v)
	require.ErrorIs(t, err, vfs.ErrChanged)
	got, err := os.ReadFile(name)
	require.NoError(t, err)
	require.Equal(t, "version two", string(got))
	require.Equal(t, []string{"f"}, osNames(t, dir), "the file is back under its name, no temporary name left")

	v2, err := vfs.StreamVersion(ctx, fsys, p, mustOpen(t, fsys, p))
	require.NoError(t, err)
	require.NoError(t, vfs.DeleteVersion(ctx, fsys, p, v2))
	require.Empty(t, osNames(t, dir))
}

// TestDeleteVersionRefusesALink: a symbolic link put where the file was is
// neither deleted nor followed.
func TestDeleteVersionRefusesALink(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(name, []byte("version one"), 0o644))
	fsys := local.New()
	p := vfs.MustPath(name)
	v, err := vfs.StreamVersion(ctx, fsys, p, mustOpen(t, fsys, p))
	require.NoError(t, err)
	require.NoError(t, os.Rename(name, filepath.Join(dir, "target")))
	require.NoError(t, os.Symlink("target", name))
	require.ErrorIs(t, vfs.DeleteVersion(ctx, fsys, p, v), vfs.ErrChanged)
	require.Equal(t, []string{"f", "target"}, osNames(t, dir))
}

func mustOpen(t *testing.T, fsys vfs.FileSystem, p vfs.Path) vfs.InputStream {
	t.Helper()
	in, err := fsys.Open(t.Context(), p)
	require.NoError(t, err)
	t.Cleanup(func() { in.Close() })
	return in
}

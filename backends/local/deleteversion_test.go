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

// TestListedVersionRefusesACopyReachedThroughALink: a file's version as a
// listing and a Stat tell it holds its device and inode, the same the open
// file tells. Once its directory is swapped for a symbolic link to a copy
// made as cp -a makes it (same name, size and modification time), a
// conditional delete at that listed version refuses the copy's file, which
// stays byte for byte. A regression test: a listed version of size and
// modification time only matched the copy, and the delete removed it.
func TestListedVersionRefusesACopyReachedThroughALink(t *testing.T) {
	ctx := t.Context()
	base := t.TempDir()
	dir, backup := filepath.Join(base, "dir"), filepath.Join(base, "backup")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Mkdir(backup, 0o755))
	name := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(name, []byte("state"), 0o644))
	fsys := local.New()
	p := vfs.MustPath(name)

	entries, err := fsys.List(ctx, vfs.MustPath(dir))
	require.NoError(t, err)
	require.Len(t, entries, 1)
	listed := vfs.VersionOf(entries[0])
	require.NotEmpty(t, listed.ID, "a listing tells the device and inode")
	st, err := fsys.Stat(ctx, p)
	require.NoError(t, err)
	require.Equal(t, listed, vfs.VersionOf(st), "Stat tells the version List tells")
	opened, err := vfs.StreamVersion(ctx, fsys, p, mustOpen(t, fsys, p))
	require.NoError(t, err)
	require.Equal(t, listed.ID, opened.ID, "the open file tells the same device and inode")

	// The copy, as cp -a makes it, then the swap.
	require.NoError(t, os.WriteFile(filepath.Join(backup, "f"), []byte("state"), 0o644))
	require.NoError(t, os.Chtimes(filepath.Join(backup, "f"), st.ModTime, st.ModTime))
	require.NoError(t, os.Rename(dir, filepath.Join(base, "aside")))
	require.NoError(t, os.Symlink(backup, dir))
	copied, err := fsys.Stat(ctx, p)
	require.NoError(t, err)
	require.Equal(t, st.Size, copied.Size)
	require.True(t, st.ModTime.Equal(copied.ModTime), "the copy looks the same")
	require.NotEqual(t, st.FileID, copied.FileID, "but it is another file")

	err = vfs.DeleteVersion(ctx, fsys, p, listed)
	require.ErrorIs(t, err, vfs.ErrChanged)
	got, err := os.ReadFile(filepath.Join(backup, "f"))
	require.NoError(t, err, "the copy stays")
	require.Equal(t, "state", string(got))
}

package local_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/vfs"
)

// TestIdentityResolvesLinkedAncestors: /data -> /mnt/disk1 makes
// file:///data/base/x and file:///mnt/disk1/base/x one file; the final name
// is not resolved (a link is its own object), a missing ancestor is kept.
func TestIdentityResolvesLinkedAncestors(t *testing.T) {
	ctx := t.Context()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	disk := filepath.Join(root, "mnt", "disk1")
	require.NoError(t, os.MkdirAll(filepath.Join(disk, "base"), 0o755))
	require.NoError(t, os.Symlink(disk, filepath.Join(root, "data")))
	require.NoError(t, os.WriteFile(filepath.Join(disk, "base", "x"), []byte("x"), 0o644))
	require.NoError(t, os.Symlink("x", filepath.Join(disk, "base", "link")))

	u := func(p string) vfs.Path { return vfs.MustPath("file://" + filepath.ToSlash(p)) }
	real := u(filepath.Join(disk, "base", "x"))
	for _, p := range []vfs.Path{
		u(filepath.Join(root, "data", "base", "x")),
		vfs.MustPath("file:" + filepath.ToSlash(filepath.Join(root, "data", "base", "x"))),
		vfs.MustPath("file://localhost" + filepath.ToSlash(filepath.Join(root, "data", "base", "x"))),
		vfs.MustPath(filepath.ToSlash(filepath.Join(root, "data", "base", "x"))),
	} {
		same, err := vfs.SameLocation(ctx, p, real)
		require.NoError(t, err, p)
		assert.True(t, same, "%s is %s", p, real)
	}
	k, err := vfs.Canonical(ctx, u(filepath.Join(root, "data", "base", "link")))
	require.NoError(t, err)
	assert.Equal(t, u(filepath.Join(disk, "base", "link")), k, "the link itself is kept, only ancestors resolve")
	k, err = vfs.Canonical(ctx, u(filepath.Join(root, "data", "new", "dir", "f")))
	require.NoError(t, err)
	assert.Equal(t, u(filepath.Join(disk, "new", "dir", "f")), k, "missing ancestors are kept below the existing one")

	same, err := vfs.SameLocation(ctx, u(filepath.Join(root, "data", "base", "y")), real)
	require.NoError(t, err)
	assert.False(t, same)
	_, err = local.Identity(ctx, vfs.DefaultRegistry(), vfs.MustPath("file://host/x"))
	require.ErrorIs(t, err, fs.ErrInvalid)
}

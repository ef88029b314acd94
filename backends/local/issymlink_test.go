package local_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/vfs"
)

// vfs.IsSymlink on file:// tells a link to a directory from a
// directory reached through a linked parent.
func TestIsSymlink(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")))
	fsys := local.New()
	for name, want := range map[string]bool{
		"real": false, "real/sub": false, "link": true, "link/sub": false, "missing": false,
	} {
		p, err := vfs.NewPath(filepath.ToSlash(filepath.Join(dir, name)))
		require.NoError(t, err)
		got, err := vfs.IsSymlink(ctx, fsys, p)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
}

package cli

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/vfskit/vfskit/vfs"
)

// List refuses to list a directory named "locked", as a store refuses a
// prefix the credentials may not read (see TestLsRecursiveGoesOnPastUnreadableDirectory).
func (k keeper) List(ctx context.Context, dir vfs.Path) ([]vfs.FileStatus, error) {
	if dir.Name() == "locked" {
		return nil, vfs.NewPathError("list", dir, fs.ErrPermission)
	}
	return k.FileSystem.List(ctx, dir)
}

// TestLsRecursiveGoesOnPastUnreadableDirectory: ls -R lists everything it
// can, reports the directory it could not list, and exits 1 at the end.
func TestLsRecursiveGoesOnPastUnreadableDirectory(t *testing.T) {
	root := fmt.Sprintf("keeper://%s-%d", strings.ToLower(t.Name()), keeperRuns.Add(1))
	t.Cleanup(func() { keepers.Delete(strings.TrimPrefix(root, "keeper://")) })
	writeTo(t, root+"/a/x", "1")
	writeTo(t, root+"/locked/secret", "2")
	writeTo(t, root+"/z/y", "3")
	r := vfskit(t, "ls", "-R", root)
	assert.Equal(t, ExitFailure, r.code, r.stderr)
	assert.Equal(t, "a/\na/x\nlocked/\nz/\nz/y\n", r.stdout, "everything readable is listed")
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
	assert.Contains(t, r.stderr, root+"/locked")
	assert.Contains(t, r.stderr, "permission denied")
}

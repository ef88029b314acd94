package checkpointstorage

import (
	"context"
	"errors"
	"io/fs"

	"github.com/vfskit/vfskit/vfs"
)

// deleteExact deletes the file at p only at version v (vfs.DeleteVersion)
// and tells whether it is gone: true when deleted, and when already gone (a
// delete whose answer was lost and that the client sent again, or another
// remover); false with a nil error when another version is there, which is
// left in place; any other failure is returned.
func deleteExact(ctx context.Context, fsys vfs.FileSystem, p vfs.Path, v vfs.Version) (bool, error) {
	err := vfs.DeleteVersion(ctx, fsys, p, v)
	switch {
	case err == nil || errors.Is(err, fs.ErrNotExist):
		return true, nil
	case errors.Is(err, vfs.ErrChanged):
		return false, nil
	}
	return false, err
}

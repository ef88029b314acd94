package checkpointstorage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"

	"github.com/vfskit/vfskit/vfs"
)

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// deleteCheckpointDir deletes dir/_metadata, then dir recursively: whatever
// stops it half-way (a crash, a failed request, a batch delete cut short), a
// checkpoint that still has its _metadata still has all its state.
func deleteCheckpointDir(ctx context.Context, fsys vfs.FileSystem, dir vfs.Path) error {
	// A _metadata directory (not a metadata file) makes no completed
	// checkpoint: it goes with the rest.
	if err := fsys.Delete(ctx, dir.Join(MetadataFileName), false); err != nil && !errors.Is(err, vfs.ErrDirNotEmpty) {
		return err
	}
	return fsys.Delete(ctx, dir, true)
}

// errLink is the error for a checkpoint directory that is a symbolic link.
func errLink(op string, p vfs.Path) error {
	return &fs.PathError{Op: op, Path: p.Redacted(),
		Err: fmt.Errorf("a symbolic link, not followed: what it leads to is not this job's: %w", fs.ErrInvalid)}
}

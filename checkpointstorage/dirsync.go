package checkpointstorage

import (
	"context"
	"errors"
	"io/fs"
	"slices"

	"github.com/vfskit/vfskit/vfs"
)

// create creates the stream's state file: with CreateUnsynced when the stream
// is unsynced and the file system has it (its directory is synced once, before
// the checkpoint's metadata is published), else with Create.
func (s *FsCheckpointStateOutputStream) create(ctx context.Context, p vfs.Path) (vfs.OutputStream, error) {
	if s.unsynced {
		return vfs.CreateUnsynced(ctx, s.fsys, p, vfs.NoOverwrite)
	}
	return s.fsys.Create(ctx, p, vfs.NoOverwrite)
}

// syncStateDirs makes the names in dirs durable with vfs.SyncDir (each
// directory once; a missing one holds no state to sync; a file system without
// vfs.DirSyncer needs no sync and sends no request).
func syncStateDirs(ctx context.Context, fsys vfs.FileSystem, dirs []vfs.Path) error {
	for i, d := range dirs {
		if d.IsZero() || slices.Contains(dirs[:i], d) {
			continue
		}
		if err := vfs.SyncDir(ctx, fsys, d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

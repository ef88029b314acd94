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
	if ds, ok := s.fsys.(vfs.DirSyncer); ok && s.unsynced {
		return ds.CreateUnsynced(ctx, p, vfs.NoOverwrite)
	}
	return s.fsys.Create(ctx, p, vfs.NoOverwrite)
}

// syncStateDirs makes the names in dirs durable where fsys is a vfs.DirSyncer
// (each directory once; a missing one holds no state to sync).
func syncStateDirs(ctx context.Context, fsys vfs.FileSystem, dirs []vfs.Path) error {
	ds, ok := fsys.(vfs.DirSyncer)
	if !ok {
		return nil
	}
	for i, d := range dirs {
		if d.IsZero() || slices.Contains(dirs[:i], d) {
			continue
		}
		if err := ds.SyncDir(ctx, d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

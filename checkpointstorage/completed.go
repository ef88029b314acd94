package checkpointstorage

import (
	"context"

	"github.com/vfskit/vfskit/vfs"
)

// FsCompletedCheckpointStorageLocation is a completed checkpoint or savepoint
// whose metadata is a file (Flink's FsCompletedCheckpointStorageLocation).
type FsCompletedCheckpointStorageLocation struct {
	fsys     vfs.FileSystem
	dir      vfs.Path
	metadata *FileStateHandle
	pointer  string
}

// ExternalPointer is the checkpoint directory, fully qualified.
func (l *FsCompletedCheckpointStorageLocation) ExternalPointer() string { return l.pointer }

// MetadataHandle is the *FileStateHandle of the _metadata file.
func (l *FsCompletedCheckpointStorageLocation) MetadataHandle() StreamStateHandle {
	return l.metadata
}

// CheckpointDir is the checkpoint's (exclusive) directory.
func (l *FsCompletedCheckpointStorageLocation) CheckpointDir() vfs.Path { return l.dir }

// MetadataPath is the path of the _metadata file.
func (l *FsCompletedCheckpointStorageLocation) MetadataPath() vfs.Path { return l.metadata.FilePath }

// FileSystem is the file system holding the checkpoint.
func (l *FsCompletedCheckpointStorageLocation) FileSystem() vfs.FileSystem { return l.fsys }

// DisposeStorageLocation deletes the checkpoint: it lists the directory
// (symbolic links are not followed) and deletes each file it listed only at
// the version listed (vfs.DeleteVersion), its _metadata first, then the
// directories this empties, each without recursion — a delete request per
// file, where a recursive delete sends batches. Flink deletes the directory
// non-recursively and orphans the files (FLINK-38909); this deletes the
// exclusive state files in it too. A crash or a failed request in between
// leaves an incomplete checkpoint, never a completed one whose state is
// gone. A file written or rewritten in the directory meanwhile stays with
// its bytes, and so does a FIFO, device or socket: the error names them and
// wraps vfs.ErrChanged (vfs.ErrNotRegular for a FIFO, device or socket); a
// _metadata rewritten meanwhile keeps the whole checkpoint. Shared state is
// not touched. A missing directory is not an error.
//
// When the location was resolved from a metadata file not named _metadata (a
// pointer to some file in some directory), or its directory is the root of the
// file system (a bucket), the directory is not a checkpoint directory for sure,
// so it is deleted non-recursively, as Flink does: that fails with
// vfs.ErrDirNotEmpty rather than deleting unrelated files. A directory that
// is a symbolic link (file://) is refused with fs.ErrInvalid: neither it nor
// what it leads to is deleted.
func (l *FsCompletedCheckpointStorageLocation) DisposeStorageLocation(ctx context.Context) error {
	if link, err := vfs.IsSymlink(ctx, l.fsys, l.dir); err != nil || link {
		if link {
			err = errLink("dispose checkpoint", l.dir)
		}
		return err
	}
	if l.metadata.FilePath.Name() == MetadataFileName && l.dir.Depth() > 0 {
		return disposeCheckpointDir(ctx, l.fsys, l.dir)
	}
	return l.fsys.Delete(ctx, l.dir, false)
}

// String describes the location.
func (l *FsCompletedCheckpointStorageLocation) String() string {
	return "FsCompletedCheckpointStorageLocation{" + l.pointer + "}"
}

// NonPersistentCompletedCheckpointStorageLocation is a completed checkpoint whose
// metadata is held in memory only (memory storage without a checkpoints
// directory). It cannot be resolved again by pointer.
type NonPersistentCompletedCheckpointStorageLocation struct {
	metadata *ByteStreamStateHandle
}

// ExternalPointer is NotExternallyAddressablePointer.
func (l *NonPersistentCompletedCheckpointStorageLocation) ExternalPointer() string {
	return NotExternallyAddressablePointer
}

// MetadataHandle is the *ByteStreamStateHandle holding the metadata.
func (l *NonPersistentCompletedCheckpointStorageLocation) MetadataHandle() StreamStateHandle {
	return l.metadata
}

// DisposeStorageLocation does nothing.
func (l *NonPersistentCompletedCheckpointStorageLocation) DisposeStorageLocation(context.Context) error {
	return nil
}

package checkpointstorage

import (
	"context"

	"github.com/vfskit/vfskit/vfs"
)

// FsCheckpointStorageLocation is where FsCheckpointStorage writes one checkpoint
// or savepoint (Flink's FsCheckpointStorageLocation): state through its
// FsCheckpointStreamFactory, metadata to <dir>/_metadata.
type FsCheckpointStorageLocation struct {
	*FsCheckpointStreamFactory
	checkpointDir vfs.Path // entropy marker removed
	metadataPath  vfs.Path
	taskOwnedDir  vfs.Path
	ref           LocationReference
	created       *created
}

func newFsCheckpointStorageLocation(fsys vfs.FileSystem, checkpointDir, sharedDir, taskOwnedDir vfs.Path, ref LocationReference, fileStateThreshold, writeBufferSize int, o options) *FsCheckpointStorageLocation {
	dir := o.removeEntropyMarker(checkpointDir)
	factory := newFsCheckpointStreamFactory(fsys, checkpointDir, sharedDir, fileStateThreshold, writeBufferSize, o)
	factory.unsynced = true // CreateMetadataOutputStream's stream syncs the state directories
	factory.created = &created{}
	return &FsCheckpointStorageLocation{
		FsCheckpointStreamFactory: factory,
		checkpointDir:             dir,
		metadataPath:              dir.Join(MetadataFileName),
		taskOwnedDir:              taskOwnedDir,
		ref:                       ref,
		created:                   factory.created,
	}
}

// CheckpointDir is the checkpoint's directory (with the entropy key removed).
func (l *FsCheckpointStorageLocation) CheckpointDir() vfs.Path { return l.checkpointDir }

// SharedStateDir is where shared state goes.
func (l *FsCheckpointStorageLocation) SharedStateDir() vfs.Path { return l.sharedDir }

// TaskOwnedStateDir is where task-owned state goes.
func (l *FsCheckpointStorageLocation) TaskOwnedStateDir() vfs.Path { return l.taskOwnedDir }

// MetadataPath is the path of the _metadata file.
func (l *FsCheckpointStorageLocation) MetadataPath() vfs.Path { return l.metadataPath }

// CreateMetadataOutputStream creates _metadata (NoOverwrite); see
// FsCheckpointMetadataOutputStream. Before it publishes the metadata, its
// CloseAndFinalizeCheckpoint makes the names of the state files durable: it
// syncs the checkpoint, shared state and task-owned state directories once
// (vfs.DirSyncer) instead of one directory fsync per state file.
func (l *FsCheckpointStorageLocation) CreateMetadataOutputStream(ctx context.Context) (CheckpointMetadataOutputStream, error) {
	s, err := newFsCheckpointMetadataOutputStream(ctx, l.fsys, l.metadataPath, l.checkpointDir, l.opts.registry)
	if err != nil {
		return nil, err
	}
	s.stateDirs = []vfs.Path{l.checkpointDir, l.sharedDir, l.taskOwnedDir}
	s.created = l.created
	return s, nil
}

// DisposeOnFailure deletes what this location wrote, and nothing else: its
// _metadata first (if its stream published one), then the exclusive state
// files its own streams published (entropy-injected ones included), each
// only at the version this location's write published (vfs.DeleteVersion),
// then the checkpoint directory if that leaves it empty. Another writer's
// _metadata and state in the same directory (a second coordinator that won
// the race for this checkpoint id) stay, a file another writer wrote again at
// a name this location used stays with its bytes (the error names it and
// wraps vfs.ErrChanged; a _metadata that is no longer this location's keeps
// all of its files), and so do files other processes wrote for the
// checkpoint through ResolveCheckpointStorageLocation (the tasks, in Flink):
// CollectGarbage removes those once the checkpoint is a failed one's
// leftover. Flink deletes the directory recursively; this cannot delete a
// checkpoint another writer completed. A directory that is a symbolic link is
// refused with fs.ErrInvalid.
func (l *FsCheckpointStorageLocation) DisposeOnFailure(ctx context.Context) error {
	return l.created.dispose(ctx, l.fsys, l.checkpointDir)
}

// LocationReference is the default reference for a checkpoint and the encoded
// directory for a savepoint.
func (l *FsCheckpointStorageLocation) LocationReference() LocationReference { return l.ref }

// PersistentMetadataCheckpointStorageLocation is where the memory storage writes a
// checkpoint when it has a checkpoints directory (Flink's
// PersistentMetadataCheckpointStorageLocation): state inline in the handles,
// metadata to <dir>/_metadata.
type PersistentMetadataCheckpointStorageLocation struct {
	*MemCheckpointStreamFactory
	fsys          vfs.FileSystem
	checkpointDir vfs.Path
	metadataPath  vfs.Path
	registry      *vfs.Registry
	created       created
}

// CheckpointDir is the checkpoint's directory.
func (l *PersistentMetadataCheckpointStorageLocation) CheckpointDir() vfs.Path {
	return l.checkpointDir
}

// MetadataPath is the path of the _metadata file.
func (l *PersistentMetadataCheckpointStorageLocation) MetadataPath() vfs.Path { return l.metadataPath }

// CreateMetadataOutputStream creates _metadata (NoOverwrite).
func (l *PersistentMetadataCheckpointStorageLocation) CreateMetadataOutputStream(ctx context.Context) (CheckpointMetadataOutputStream, error) {
	s, err := newFsCheckpointMetadataOutputStream(ctx, l.fsys, l.metadataPath, l.checkpointDir, l.registry)
	if err != nil {
		return nil, err
	}
	s.created = &l.created
	return s, nil
}

// DisposeOnFailure deletes the _metadata this location published (if it did),
// then the checkpoint directory if that leaves it empty: never another
// writer's _metadata (see FsCheckpointStorageLocation.DisposeOnFailure).
func (l *PersistentMetadataCheckpointStorageLocation) DisposeOnFailure(ctx context.Context) error {
	return l.created.dispose(ctx, l.fsys, l.checkpointDir)
}

// LocationReference is the default reference.
func (l *PersistentMetadataCheckpointStorageLocation) LocationReference() LocationReference {
	return DefaultLocationReference()
}

// NonPersistentMetadataCheckpointStorageLocation is where the memory storage
// writes a checkpoint without a checkpoints directory: state and metadata stay in
// memory and nothing touches storage.
type NonPersistentMetadataCheckpointStorageLocation struct {
	*MemCheckpointStreamFactory
}

// CreateMetadataOutputStream returns a *MemoryMetadataOutputStream.
func (l *NonPersistentMetadataCheckpointStorageLocation) CreateMetadataOutputStream(context.Context) (CheckpointMetadataOutputStream, error) {
	return &MemoryMetadataOutputStream{}, nil
}

// DisposeOnFailure does nothing.
func (l *NonPersistentMetadataCheckpointStorageLocation) DisposeOnFailure(context.Context) error {
	return nil
}

// LocationReference is the default reference.
func (l *NonPersistentMetadataCheckpointStorageLocation) LocationReference() LocationReference {
	return DefaultLocationReference()
}

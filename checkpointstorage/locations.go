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
}

func newFsCheckpointStorageLocation(fsys vfs.FileSystem, checkpointDir, sharedDir, taskOwnedDir vfs.Path, ref LocationReference, fileStateThreshold, writeBufferSize int, o options) *FsCheckpointStorageLocation {
	dir := o.removeEntropyMarker(checkpointDir)
	factory := newFsCheckpointStreamFactory(fsys, checkpointDir, sharedDir, fileStateThreshold, writeBufferSize, o)
	factory.unsynced = true // CreateMetadataOutputStream's stream syncs the state directories
	return &FsCheckpointStorageLocation{
		FsCheckpointStreamFactory: factory,
		checkpointDir:             dir,
		metadataPath:              dir.Join(MetadataFileName),
		taskOwnedDir:              taskOwnedDir,
		ref:                       ref,
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
	return s, nil
}

// DisposeOnFailure deletes the checkpoint directory recursively, its _metadata
// (if one was published) first.
func (l *FsCheckpointStorageLocation) DisposeOnFailure(ctx context.Context) error {
	return deleteCheckpointDir(ctx, l.fsys, l.checkpointDir)
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
}

// CheckpointDir is the checkpoint's directory.
func (l *PersistentMetadataCheckpointStorageLocation) CheckpointDir() vfs.Path {
	return l.checkpointDir
}

// MetadataPath is the path of the _metadata file.
func (l *PersistentMetadataCheckpointStorageLocation) MetadataPath() vfs.Path { return l.metadataPath }

// CreateMetadataOutputStream creates _metadata (NoOverwrite).
func (l *PersistentMetadataCheckpointStorageLocation) CreateMetadataOutputStream(ctx context.Context) (CheckpointMetadataOutputStream, error) {
	return newFsCheckpointMetadataOutputStream(ctx, l.fsys, l.metadataPath, l.checkpointDir, l.registry)
}

// DisposeOnFailure deletes the checkpoint directory recursively, its _metadata
// (if one was published) first.
func (l *PersistentMetadataCheckpointStorageLocation) DisposeOnFailure(ctx context.Context) error {
	return deleteCheckpointDir(ctx, l.fsys, l.checkpointDir)
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

package checkpointstorage

import (
	"context"
	"io"

	"github.com/vfskit/vfskit/vfs"
)

// CheckpointStorage is Flink's CheckpointStorageAccess: it creates the storage
// locations of checkpoints and savepoints, resolves pointers to completed ones,
// and gives tasks the stream factories they write state through. Both
// implementations are safe for concurrent use.
type CheckpointStorage interface {
	// SupportsHighlyAvailableStorage reports whether checkpoints outlive the
	// process (the metadata is written to a file system).
	SupportsHighlyAvailableStorage() bool
	// HasDefaultSavepointLocation reports whether a default savepoint directory is
	// configured.
	HasDefaultSavepointLocation() bool
	// ResolveCheckpoint resolves a pointer — a checkpoint or savepoint directory
	// that holds _metadata, or the _metadata file itself — to the completed
	// checkpoint. An empty pointer fails with fs.ErrInvalid, a missing one with
	// fs.ErrNotExist, a directory without _metadata with fs.ErrNotExist and
	// Flink's "Cannot find meta data file" message.
	ResolveCheckpoint(ctx context.Context, pointer string) (CompletedCheckpointStorageLocation, error)
	// InitializeLocationForCheckpoint creates the storage location of checkpoint
	// checkpointID (≥ 0; a negative id fails with Flink's "Illegal negative
	// checkpoint id" message and fs.ErrInvalid).
	InitializeLocationForCheckpoint(ctx context.Context, checkpointID int64) (CheckpointStorageLocation, error)
	// InitializeLocationForSavepoint creates a new savepoint directory
	// savepoint-<job id[:6]>-<12 hex> under externalLocationPointer, or under the
	// default savepoint location when the pointer is "". Without either it fails
	// with "No savepoint location given and no default location configured.".
	InitializeLocationForSavepoint(ctx context.Context, checkpointID int64, externalLocationPointer string) (CheckpointStorageLocation, error)
	// ResolveCheckpointStorageLocation gives a task the stream factory of a
	// checkpoint's location from the reference the coordinator sent it: the
	// default reference means the checkpoint's default directory, any other
	// encodes the location's path.
	ResolveCheckpointStorageLocation(ctx context.Context, checkpointID int64, ref LocationReference) (CheckpointStreamFactory, error)
	// CreateTaskOwnedStateStream opens a stream for state owned by the task (not
	// released by the coordinator), written to the job's taskowned/ directory.
	CreateTaskOwnedStateStream(ctx context.Context) (CheckpointStateOutputStream, error)
}

// CheckpointStreamFactory creates the streams a task writes checkpoint state to.
type CheckpointStreamFactory interface {
	// CreateCheckpointStateOutputStream opens a new state stream. It makes no
	// request to the storage: the file (if any) is created when the stream
	// outgrows its inline threshold.
	CreateCheckpointStateOutputStream(ctx context.Context, scope StateScope) (CheckpointStateOutputStream, error)
}

// StateScope tells whether state belongs to one checkpoint (Exclusive, the zero
// value) or may be referenced by several (Shared), like Flink's
// CheckpointedStateScope.
type StateScope int

const (
	// Exclusive state belongs to one checkpoint and is stored in its directory.
	Exclusive StateScope = iota
	// Shared state may be referenced by later checkpoints; it is stored in the
	// job's shared/ directory.
	Shared
)

// String returns "EXCLUSIVE" or "SHARED", Flink's names.
func (s StateScope) String() string {
	switch s {
	case Exclusive:
		return "EXCLUSIVE"
	case Shared:
		return "SHARED"
	}
	return "StateScope(" + itoa(int64(s)) + ")"
}

// CheckpointStateOutputStream receives one piece of state. It is not safe for
// concurrent use.
type CheckpointStateOutputStream interface {
	io.Writer
	// Pos is the number of bytes written so far.
	Pos() int64
	// Flush pushes buffered bytes towards the storage when they no longer fit
	// inline; it never publishes anything.
	Flush() error
	// Sync makes the bytes written so far durable where the backend can.
	Sync() error
	// CloseAndGetHandle closes the stream and returns the handle of the state
	// written, or nil, nil when nothing was written. On error nothing is
	// published.
	CloseAndGetHandle(ctx context.Context) (StreamStateHandle, error)
	// Close discards the stream: whatever was written is not published (a file
	// being written is aborted). Close after CloseAndGetHandle does nothing.
	Close() error
}

// StreamStateHandle points to a piece of state: inline bytes
// (*ByteStreamStateHandle), a file (*FileStateHandle) or a file relative to the
// checkpoint directory (*RelativeFileStateHandle).
type StreamStateHandle interface {
	// OpenInputStream opens the state for reading.
	OpenInputStream(ctx context.Context) (vfs.InputStream, error)
	// StateSize is the size of the state in bytes.
	StateSize() int64
	// DiscardState deletes the state's storage; a missing file is not an error.
	DiscardState(ctx context.Context) error
}

// CheckpointStorageLocation is where one checkpoint or savepoint is written.
type CheckpointStorageLocation interface {
	CheckpointStreamFactory
	// CreateMetadataOutputStream opens the stream the coordinator writes the
	// checkpoint's metadata to; see FinalizeCheckpoint for the usual way.
	CreateMetadataOutputStream(ctx context.Context) (CheckpointMetadataOutputStream, error)
	// DisposeOnFailure deletes what was written to the location, after the
	// checkpoint failed: each file only at the version its write published
	// (never another writer's version of it).
	DisposeOnFailure(ctx context.Context) error
	// LocationReference is the reference tasks use to find this location with
	// ResolveCheckpointStorageLocation.
	LocationReference() LocationReference
}

// CheckpointMetadataOutputStream receives a checkpoint's metadata. Nothing is
// visible until CloseAndFinalizeCheckpoint succeeds. It is not safe for
// concurrent use.
type CheckpointMetadataOutputStream interface {
	io.Writer
	// Pos is the number of bytes written so far.
	Pos() int64
	// CloseAndFinalizeCheckpoint publishes the metadata and returns the completed
	// checkpoint. When the metadata already exists it fails with fs.ErrExist and
	// leaves the existing file untouched.
	CloseAndFinalizeCheckpoint(ctx context.Context) (CompletedCheckpointStorageLocation, error)
	// Close discards the stream without publishing anything.
	Close() error
}

// CompletedCheckpointStorageLocation is a completed checkpoint or savepoint.
type CompletedCheckpointStorageLocation interface {
	// ExternalPointer names the checkpoint: its fully qualified directory, which
	// ResolveCheckpoint and LoadCheckpoint accept, or
	// NotExternallyAddressablePointer when the metadata lives only in memory.
	ExternalPointer() string
	// MetadataHandle is the handle of the metadata.
	MetadataHandle() StreamStateHandle
	// DisposeStorageLocation deletes the checkpoint's directory with what it
	// lists in it (not the shared state), each file only at the version
	// listed: what is written there meanwhile stays.
	DisposeStorageLocation(ctx context.Context) error
}

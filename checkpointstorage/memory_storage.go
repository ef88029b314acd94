package checkpointstorage

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/vfskit/vfskit/vfs"
)

// MemoryBackendCheckpointStorage keeps state inline in the state handles (Flink's
// MemoryBackendCheckpointStorageAccess). With a checkpoints directory, each
// checkpoint's metadata (which then holds all its state) is written durably to
// <base>/<job id>/chk-<N>/_metadata; without one, nothing touches storage and
// the metadata stays in memory. It is safe for concurrent use.
type MemoryBackendCheckpointStorage struct {
	baseStorage
	fsys           vfs.FileSystem // nil without a checkpoints directory
	checkpointsDir vfs.Path
	maxStateSize   int
}

var _ CheckpointStorage = (*MemoryBackendCheckpointStorage)(nil)

// NewMemoryBackendCheckpointStorage returns the memory checkpoint storage of job
// jobID. checkpointsBaseDirectory and defaultSavepointLocation may be the zero
// Path. maxStateSize is the largest state one stream may hold (0 means
// DefaultMaxStateSize; negative fails with fs.ErrInvalid). It makes no request to
// the storage.
func NewMemoryBackendCheckpointStorage(ctx context.Context, jobID JobID,
	checkpointsBaseDirectory, defaultSavepointLocation vfs.Path, maxStateSize int,
	opts ...Option) (*MemoryBackendCheckpointStorage, error) {
	if maxStateSize < 0 {
		return nil, fmt.Errorf("checkpointstorage: maxStateSize must be positive (got %d): %w", maxStateSize, fs.ErrInvalid)
	}
	if maxStateSize == 0 {
		maxStateSize = DefaultMaxStateSize
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	s := &MemoryBackendCheckpointStorage{
		baseStorage:  baseStorage{jobID: jobID, defaultSavepointDir: defaultSavepointLocation, opts: o},
		maxStateSize: maxStateSize,
	}
	if !checkpointsBaseDirectory.IsZero() {
		s.fsys, err = o.registry.GetPath(ctx, checkpointsBaseDirectory)
		if err != nil {
			return nil, err
		}
		s.checkpointsDir = JobCheckpointsDir(checkpointsBaseDirectory.MakeQualified(s.fsys), jobID)
	}
	return s, nil
}

// MaxStateSize is the largest state one stream may hold, in bytes.
func (s *MemoryBackendCheckpointStorage) MaxStateSize() int { return s.maxStateSize }

// CheckpointsDirectory is <base>/<job id>, or the zero Path without a checkpoints
// directory.
func (s *MemoryBackendCheckpointStorage) CheckpointsDirectory() vfs.Path { return s.checkpointsDir }

// SupportsHighlyAvailableStorage reports whether a checkpoints directory is
// configured.
func (s *MemoryBackendCheckpointStorage) SupportsHighlyAvailableStorage() bool {
	return s.fsys != nil
}

// InitializeLocationForCheckpoint returns the location of checkpoint
// checkpointID: with a checkpoints directory it creates chk-<N> and returns a
// *PersistentMetadataCheckpointStorageLocation, without one a
// *NonPersistentMetadataCheckpointStorageLocation.
func (s *MemoryBackendCheckpointStorage) InitializeLocationForCheckpoint(ctx context.Context, checkpointID int64) (CheckpointStorageLocation, error) {
	if err := checkCheckpointID(checkpointID); err != nil {
		return nil, err
	}
	if s.fsys == nil {
		return &NonPersistentMetadataCheckpointStorageLocation{NewMemCheckpointStreamFactory(s.maxStateSize)}, nil
	}
	dir := CheckpointDir(s.checkpointsDir, checkpointID)
	if err := s.fsys.Mkdirs(ctx, dir); err != nil {
		return nil, err
	}
	return s.persistentLocation(s.fsys, dir), nil
}

func (s *MemoryBackendCheckpointStorage) persistentLocation(fsys vfs.FileSystem, dir vfs.Path) *PersistentMetadataCheckpointStorageLocation {
	return &PersistentMetadataCheckpointStorageLocation{
		MemCheckpointStreamFactory: NewMemCheckpointStreamFactory(s.maxStateSize),
		fsys:                       fsys,
		checkpointDir:              dir,
		metadataPath:               dir.Join(MetadataFileName),
		registry:                   s.opts.registry,
	}
}

// InitializeLocationForSavepoint creates a savepoint directory; the savepoint's
// state is inline in its _metadata.
func (s *MemoryBackendCheckpointStorage) InitializeLocationForSavepoint(ctx context.Context, checkpointID int64, externalLocationPointer string) (CheckpointStorageLocation, error) {
	if err := checkCheckpointID(checkpointID); err != nil {
		return nil, err
	}
	fsys, dir, err := s.initializeSavepointDir(ctx, externalLocationPointer)
	if err != nil {
		return nil, err
	}
	return s.persistentLocation(fsys, dir), nil
}

// ResolveCheckpointStorageLocation returns a *MemCheckpointStreamFactory whatever
// the reference: the state always goes inline.
func (s *MemoryBackendCheckpointStorage) ResolveCheckpointStorageLocation(_ context.Context, checkpointID int64, _ LocationReference) (CheckpointStreamFactory, error) {
	if err := checkCheckpointID(checkpointID); err != nil {
		return nil, err
	}
	return NewMemCheckpointStreamFactory(s.maxStateSize), nil
}

// CreateTaskOwnedStateStream returns an in-memory stream.
func (s *MemoryBackendCheckpointStorage) CreateTaskOwnedStateStream(context.Context) (CheckpointStateOutputStream, error) {
	return NewMemoryCheckpointOutputStream(s.maxStateSize), nil
}

// String describes the storage.
func (s *MemoryBackendCheckpointStorage) String() string {
	return fmt.Sprintf("MemoryBackendCheckpointStorage {checkpointsDirectory=%s, maxStateSize=%d}", s.checkpointsDir, s.maxStateSize)
}

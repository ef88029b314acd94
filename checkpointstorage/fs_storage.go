package checkpointstorage

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/vfskit/vfskit/vfs"
)

// FsCheckpointStorage stores checkpoints in files (Flink's
// FsCheckpointStorageAccess): small state inline in the metadata, larger state in
// files of the checkpoint directory, shared state in the job's shared/ directory.
// It is safe for concurrent use.
type FsCheckpointStorage struct {
	baseStorage
	fsys               vfs.FileSystem
	checkpointsDir     vfs.Path
	sharedDir          vfs.Path
	taskOwnedDir       vfs.Path
	fileStateThreshold int
	writeBufferSize    int
}

var _ CheckpointStorage = (*FsCheckpointStorage)(nil)

// NewFsCheckpointStorage returns the file checkpoint storage of job jobID, writing
// to <checkpointsBaseDirectory>/<job id>/ on the file system the directory's
// scheme names (looked up in the vfs registry). defaultSavepointLocation may be
// the zero Path. fileStateThreshold (≤ MaxFileStateThreshold) is the largest
// state kept inline; writeBufferSize the write buffer of state files.
//
// It makes no request to the storage. Bad sizes fail with Flink's messages and
// fs.ErrInvalid; a zero checkpointsBaseDirectory with fs.ErrInvalid.
func NewFsCheckpointStorage(ctx context.Context, jobID JobID,
	checkpointsBaseDirectory, defaultSavepointLocation vfs.Path,
	fileStateThreshold, writeBufferSize int, opts ...Option) (*FsCheckpointStorage, error) {
	if err := checkFsSizes(fileStateThreshold, writeBufferSize); err != nil {
		return nil, err
	}
	if checkpointsBaseDirectory.IsZero() {
		return nil, fmt.Errorf("checkpointstorage: the checkpoints base directory is required: %w", fs.ErrInvalid)
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	fsys, err := o.registry.GetPath(ctx, checkpointsBaseDirectory)
	if err != nil {
		return nil, err
	}
	dir := JobCheckpointsDir(checkpointsBaseDirectory.MakeQualified(fsys), jobID)
	return &FsCheckpointStorage{
		baseStorage:        baseStorage{jobID: jobID, defaultSavepointDir: defaultSavepointLocation, opts: o},
		fsys:               fsys,
		checkpointsDir:     dir,
		sharedDir:          dir.Join(SharedStateDir),
		taskOwnedDir:       dir.Join(TaskOwnedStateDir),
		fileStateThreshold: fileStateThreshold,
		writeBufferSize:    writeBufferSize,
	}, nil
}

// CheckpointsDirectory is <base>/<job id>, where the chk-N directories are.
func (s *FsCheckpointStorage) CheckpointsDirectory() vfs.Path { return s.checkpointsDir }

// FileSystem is the file system of the checkpoints directory.
func (s *FsCheckpointStorage) FileSystem() vfs.FileSystem { return s.fsys }

// FileStateThreshold is the largest state kept inline, in bytes.
func (s *FsCheckpointStorage) FileStateThreshold() int { return s.fileStateThreshold }

// WriteBufferSize is the configured write buffer size.
func (s *FsCheckpointStorage) WriteBufferSize() int { return s.writeBufferSize }

// SupportsHighlyAvailableStorage returns true.
func (s *FsCheckpointStorage) SupportsHighlyAvailableStorage() bool { return true }

// InitializeBaseLocationsForCheckpoint creates the job's shared/ and taskowned/
// directories (Flink's initializeBaseLocationsForCheckpoint). It is optional:
// state streams create their files' parents themselves.
func (s *FsCheckpointStorage) InitializeBaseLocationsForCheckpoint(ctx context.Context) error {
	if err := s.fsys.Mkdirs(ctx, s.opts.removeEntropyMarker(s.sharedDir)); err != nil {
		return fmt.Errorf("checkpointstorage: Failed to create directory for shared state: %s: %w", s.sharedDir.Redacted(), err)
	}
	if err := s.fsys.Mkdirs(ctx, s.opts.removeEntropyMarker(s.taskOwnedDir)); err != nil {
		return fmt.Errorf("checkpointstorage: Failed to create directory for task owned state: %s: %w", s.taskOwnedDir.Redacted(), err)
	}
	return nil
}

// InitializeLocationForCheckpoint creates chk-<checkpointID> (one mkdir, done by
// the coordinator) and returns its location, with the default reference.
func (s *FsCheckpointStorage) InitializeLocationForCheckpoint(ctx context.Context, checkpointID int64) (CheckpointStorageLocation, error) {
	if err := checkCheckpointID(checkpointID); err != nil {
		return nil, err
	}
	dir := CheckpointDir(s.checkpointsDir, checkpointID)
	if err := s.fsys.Mkdirs(ctx, s.opts.removeEntropyMarker(dir)); err != nil {
		return nil, err
	}
	return s.checkpointLocation(dir, DefaultLocationReference()), nil
}

func (s *FsCheckpointStorage) checkpointLocation(dir vfs.Path, ref LocationReference) *FsCheckpointStorageLocation {
	return newFsCheckpointStorageLocation(s.fsys, dir, s.sharedDir, s.taskOwnedDir, ref, s.fileStateThreshold, s.writeBufferSize, s.opts)
}

// InitializeLocationForSavepoint creates a savepoint directory and returns its
// location, whose reference encodes the directory. All of the savepoint's state
// (exclusive and shared) goes into that directory.
func (s *FsCheckpointStorage) InitializeLocationForSavepoint(ctx context.Context, checkpointID int64, externalLocationPointer string) (CheckpointStorageLocation, error) {
	if err := checkCheckpointID(checkpointID); err != nil {
		return nil, err
	}
	fsys, dir, err := s.initializeSavepointDir(ctx, externalLocationPointer)
	if err != nil {
		return nil, err
	}
	return newFsCheckpointStorageLocation(fsys, dir, dir, dir, EncodePathAsReference(dir), s.fileStateThreshold, s.writeBufferSize, s.opts), nil
}

// ResolveCheckpointStorageLocation returns the stream factory of a checkpoint's
// location: chk-<checkpointID> for the default reference, the encoded directory
// otherwise. It makes no request to the storage.
func (s *FsCheckpointStorage) ResolveCheckpointStorageLocation(ctx context.Context, checkpointID int64, ref LocationReference) (CheckpointStreamFactory, error) {
	if err := checkCheckpointID(checkpointID); err != nil {
		return nil, err
	}
	if ref.IsDefault() {
		return s.checkpointLocation(CheckpointDir(s.checkpointsDir, checkpointID), ref), nil
	}
	p, err := DecodePathFromReference(ref)
	if err != nil {
		return nil, err
	}
	fsys, err := s.opts.registry.GetPath(ctx, p)
	if err != nil {
		return nil, err
	}
	return newFsCheckpointStorageLocation(fsys, p, p, p, ref, s.fileStateThreshold, s.writeBufferSize, s.opts), nil
}

// CreateTaskOwnedStateStream opens a stream into the job's taskowned/ directory;
// its files are recorded with absolute paths and the Shared scope.
func (s *FsCheckpointStorage) CreateTaskOwnedStateStream(ctx context.Context) (CheckpointStateOutputStream, error) {
	out := newFsCheckpointStateOutputStream(ctx, s.fsys, s.taskOwnedDir, max(s.writeBufferSize, s.fileStateThreshold), s.fileStateThreshold, false, Shared, s.opts)
	out.unsynced = true // durable with the next checkpoint, which syncs taskowned/
	return out, nil
}

// String describes the storage.
func (s *FsCheckpointStorage) String() string {
	return fmt.Sprintf("FsCheckpointStorage{checkpointsDirectory=%s, fileStateThreshold=%d, writeBufferSize=%d}", s.checkpointsDir, s.fileStateThreshold, s.writeBufferSize)
}

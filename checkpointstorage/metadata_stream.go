package checkpointstorage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/vfskit/vfskit/vfs"
)

// FsCheckpointMetadataOutputStream writes a checkpoint's _metadata file (Flink's
// FsCheckpointMetadataOutputStream). The file is created NoOverwrite and becomes
// visible only when CloseAndFinalizeCheckpoint succeeds; an existing _metadata is
// never replaced.
type FsCheckpointMetadataOutputStream struct {
	fsys         vfs.FileSystem
	metadataPath vfs.Path
	dir          vfs.Path
	out          vfs.OutputStream
	cancel       context.CancelFunc
	closed       bool
	registry     *vfs.Registry
	// stateDirs are synced (syncStateDirs) before the metadata is published.
	stateDirs []vfs.Path
	// created, when set, records that the metadata was published.
	created *created
}

func newFsCheckpointMetadataOutputStream(ctx context.Context, fsys vfs.FileSystem, metadataPath, dir vfs.Path, registry *vfs.Registry) (*FsCheckpointMetadataOutputStream, error) {
	ctx, cancel := context.WithCancel(ctx)
	out, err := fsys.Create(ctx, metadataPath, vfs.NoOverwrite)
	if err != nil {
		cancel()
		return nil, metadataCreateError(metadataPath, err)
	}
	return &FsCheckpointMetadataOutputStream{
		fsys: fsys, metadataPath: metadataPath, dir: dir, out: out, cancel: cancel, registry: registry,
	}, nil
}

func metadataCreateError(p vfs.Path, err error) error {
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("checkpointstorage: Target file %s already exists.: %w", p, err)
	}
	return fmt.Errorf("checkpointstorage: cannot create metadata file %s: %w", p, err)
}

// Write writes metadata bytes.
func (s *FsCheckpointMetadataOutputStream) Write(p []byte) (int, error) {
	if s.closed {
		return 0, errStreamClosed()
	}
	return s.out.Write(p)
}

// Pos is the number of bytes written.
func (s *FsCheckpointMetadataOutputStream) Pos() int64 { return s.out.Pos() }

// Flush flushes the underlying stream (it publishes nothing).
func (s *FsCheckpointMetadataOutputStream) Flush() error { return s.out.Flush() }

// Sync syncs the underlying stream (it publishes nothing).
func (s *FsCheckpointMetadataOutputStream) Sync() error { return s.out.Sync() }

// Close discards the metadata: nothing is published.
func (s *FsCheckpointMetadataOutputStream) Close() error {
	if !s.closed {
		s.closed = true
		vfs.Discard(s.out, s.cancel)
	}
	return nil
}

// CloseAndFinalizeCheckpoint publishes _metadata and returns the completed
// checkpoint. When _metadata appeared in the meantime (a second attempt), it
// fails with fs.ErrExist and Flink's "Target file ... already exists." message,
// leaving the first file as it was.
func (s *FsCheckpointMetadataOutputStream) CloseAndFinalizeCheckpoint(ctx context.Context) (CompletedCheckpointStorageLocation, error) {
	if s.closed {
		return nil, errStreamClosed()
	}
	s.closed = true
	size := s.out.Pos()
	if err := syncStateDirs(ctx, s.fsys, s.stateDirs); err != nil {
		vfs.Discard(s.out, s.cancel)
		return nil, fmt.Errorf("checkpointstorage: cannot make the state files of %s durable before its metadata: %w", s.metadataPath.Redacted(), err)
	}
	s.created.keepVersion(s.out)
	err := s.out.Close()
	s.cancel()
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, metadataCreateError(s.metadataPath, err)
		}
		return nil, fmt.Errorf("checkpointstorage: Could not flush and close the file system output stream to %s in order to obtain the stream state handle: %w", s.metadataPath.Redacted(), err)
	}
	s.created.published(ctx, s.fsys, s.metadataPath, s.out)
	mp := s.metadataPath.MakeQualified(s.fsys)
	return &FsCompletedCheckpointStorageLocation{
		fsys:     s.fsys,
		dir:      s.dir.MakeQualified(s.fsys),
		metadata: &FileStateHandle{FilePath: mp, Size: size, registry: s.registry},
		pointer:  mp.Parent().String(),
	}, nil
}

// MemoryMetadataOutputStream collects the metadata of a checkpoint whose metadata
// stays in memory (memory storage without a checkpoints directory).
type MemoryMetadataOutputStream struct {
	buf    bytes.Buffer
	closed bool
}

// Write appends p.
func (s *MemoryMetadataOutputStream) Write(p []byte) (int, error) {
	if s.closed {
		return 0, errStreamClosed()
	}
	return s.buf.Write(p)
}

// Pos is the number of bytes written.
func (s *MemoryMetadataOutputStream) Pos() int64 { return int64(s.buf.Len()) }

// Close discards the metadata.
func (s *MemoryMetadataOutputStream) Close() error {
	s.closed = true
	s.buf = bytes.Buffer{}
	return nil
}

// CloseAndFinalizeCheckpoint returns a completed checkpoint holding the metadata
// in memory.
func (s *MemoryMetadataOutputStream) CloseAndFinalizeCheckpoint(context.Context) (CompletedCheckpointStorageLocation, error) {
	if s.closed {
		return nil, errStreamClosed()
	}
	s.closed = true
	return &NonPersistentCompletedCheckpointStorageLocation{
		metadata: &ByteStreamStateHandle{Name: "checkpoint metadata", Data: bytes.Clone(s.buf.Bytes())},
	}, nil
}

package checkpointstorage

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// FinalizeCheckpoint writes m into loc's metadata stream and publishes it: the
// usual last step of a checkpoint. On any error nothing is published and the
// stream is discarded; a second finalization of the same checkpoint fails with
// fs.ErrExist and leaves the first _metadata as it was.
func FinalizeCheckpoint(ctx context.Context, loc CheckpointStorageLocation, m *CheckpointMetadata) (CompletedCheckpointStorageLocation, error) {
	data, err := m.MarshalBinary()
	if err != nil {
		return nil, err
	}
	out, err := loc.CreateMetadataOutputStream(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := out.Write(data); err != nil {
		_ = out.Close()
		return nil, fmt.Errorf("checkpointstorage: writing metadata: %w", err)
	}
	return out.CloseAndFinalizeCheckpoint(ctx)
}

// ReadMetadata reads and decodes the metadata of a completed checkpoint, in
// vfskit's format or Flink's (told apart by the magic number, see package
// metadata). Relative state handles resolve against the directory of the
// metadata file.
// Corrupted or truncated metadata fails with ErrCorruptMetadata and the path.
func ReadMetadata(ctx context.Context, loc CompletedCheckpointStorageLocation, opts ...Option) (*CheckpointMetadata, error) {
	h := loc.MetadataHandle()
	var dir vfs.Path
	name := loc.ExternalPointer()
	if fh, ok := h.(*FileStateHandle); ok {
		dir = fh.FilePath.Parent()
		name = fh.FilePath.String()
	}
	in, err := h.OpenInputStream(ctx)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	m, err := metadata.Read(in)
	if err != nil {
		return nil, &fs.PathError{Op: "read checkpoint metadata", Path: vfs.RedactURI(name), Err: err}
	}
	liveHandles(m, dir, o.registry)
	return m, nil
}

// LoadCheckpoint resolves pointer (a checkpoint or savepoint directory, or its
// _metadata file, on any registered file system; see ResolveCheckpointPointer),
// then reads and validates its metadata. A savepoint directory copied to another
// place or backend loads there: its relative state handles resolve against the
// directory the metadata was loaded from.
func LoadCheckpoint(ctx context.Context, pointer string, opts ...Option) (*CheckpointMetadata, *FsCompletedCheckpointStorageLocation, error) {
	loc, err := ResolveCheckpointPointer(ctx, pointer, opts...)
	if err != nil {
		return nil, nil, err
	}
	m, err := ReadMetadata(ctx, loc, opts...)
	if err != nil {
		return nil, nil, err
	}
	return m, loc, nil
}

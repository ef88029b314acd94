package checkpointstorage

import (
	"fmt"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// CheckpointMetadata is what a checkpoint's _metadata file holds, in either
// format: vfskit's own (what this package writes) or Flink's (what Flink
// writes). See package metadata for the model, both formats and their
// bounds.
//
// Metadata this package loads (LoadCheckpoint, ReadMetadata,
// UnmarshalCheckpointMetadata) holds, in the Handles of each subtask of a
// vfskit-format file, this package's live handles (*ByteStreamStateHandle,
// *FileStateHandle, *RelativeFileStateHandle, with relative handles resolved
// against the directory the metadata was loaded from), which open their
// state; to write metadata, put the handles CloseAndGetHandle returned there.
type CheckpointMetadata = metadata.Metadata

// OperatorState is the state of one operator (see metadata.Operator; in
// vfskit's format its id is UID).
type OperatorState = metadata.Operator

// SubtaskState is the state of one parallel subtask of an operator (see
// metadata.Subtask).
type SubtaskState = metadata.Subtask

// ErrCorruptMetadata is wrapped by every error about _metadata content that is
// truncated, corrupted (checksum mismatch) or not a metadata file at all.
var ErrCorruptMetadata = metadata.ErrCorrupt

// UnmarshalCheckpointMetadata decodes a _metadata file in either format
// (metadata.Decode) and turns the stream handles of a vfskit-format file into
// this package's live handles; relative ones resolve against checkpointDir,
// the directory the metadata was read from (a zero checkpointDir leaves their
// FilePath zero). Truncated, corrupted or foreign data fails with an error that
// errors.Is ErrCorruptMetadata.
func UnmarshalCheckpointMetadata(data []byte, checkpointDir vfs.Path, opts ...Option) (*CheckpointMetadata, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	m, err := metadata.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("checkpointstorage: %w", err)
	}
	liveHandles(m, checkpointDir, o.registry)
	return m, nil
}

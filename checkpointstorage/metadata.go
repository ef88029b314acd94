package checkpointstorage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/vfskit/vfskit/vfs"
)

// CheckpointMetadata is what a checkpoint's _metadata file holds: which state
// handles make up the checkpoint, per operator and per subtask (a simplified
// form of Flink's CheckpointMetadata → OperatorState → OperatorSubtaskState).
//
// # Binary format (version 1)
//
// MarshalBinary writes, big-endian:
//
//	magic    4 bytes  "VFKC"
//	version  2 bytes  1
//	length   4 bytes  number of body bytes
//	body     length bytes (below)
//	crc      4 bytes  CRC-32C (Castagnoli) of everything before it
//
// The body is the job id (16 bytes), the checkpoint id (varint), the timestamp
// (varint Unix seconds, uvarint nanoseconds), a flags byte (bit 0: savepoint),
// then the operators: a uvarint count, each operator being its id (string), its
// parallelism and max parallelism (uvarints) and its subtasks: a uvarint count,
// each subtask being its index (uvarint) and its handles: a uvarint count, each
// handle a kind byte (1 inline, 2 file, 3 relative file) followed by, for inline,
// the name (string) and the bytes (uvarint length + bytes); for file, the
// qualified path (string), the size (varint) and the scope (byte); for relative
// file, the path relative to the checkpoint directory (string) and the size
// (varint). Strings are a uvarint length followed by UTF-8 bytes.
//
// A reader refuses a file whose magic, version, length or CRC do not match, so a
// truncated or corrupted file is reported (errors.Is ErrCorruptMetadata), never
// half-loaded. Relative handles are resolved against the directory the metadata
// is loaded from.
type CheckpointMetadata struct {
	// JobID is the job the checkpoint belongs to.
	JobID JobID
	// CheckpointID is the checkpoint's id (≥ 0).
	CheckpointID int64
	// Timestamp is when the checkpoint was triggered.
	Timestamp time.Time
	// IsSavepoint tells a savepoint from a checkpoint.
	IsSavepoint bool
	// Operators holds the state of each operator.
	Operators []OperatorState
}

// OperatorState is the state of one operator, one entry per subtask that has
// state.
type OperatorState struct {
	// OperatorID identifies the operator in the job (any non-empty string).
	OperatorID string
	// Parallelism is the operator's parallelism when the checkpoint was taken.
	Parallelism int
	// MaxParallelism is the operator's maximum parallelism.
	MaxParallelism int
	// Subtasks holds the state of each subtask.
	Subtasks []SubtaskState
}

// SubtaskState is the state of one parallel subtask of an operator.
type SubtaskState struct {
	// Index is the subtask's index, 0 ≤ Index < Parallelism.
	Index int
	// Handles point to the subtask's state, in the order the subtask wrote it.
	// Each is a *ByteStreamStateHandle, *FileStateHandle or
	// *RelativeFileStateHandle; nil is not allowed.
	Handles []StreamStateHandle
}

// Errors of the metadata codec.
var (
	// ErrCorruptMetadata is wrapped by every error about _metadata content that is
	// truncated, corrupted (checksum mismatch) or not a metadata file at all.
	ErrCorruptMetadata = errors.New("corrupt checkpoint metadata")
	// ErrUnsupportedMetadataVersion is wrapped when the format version is newer
	// than this library reads.
	ErrUnsupportedMetadataVersion = errors.New("unsupported checkpoint metadata version")
)

// MetadataFormatVersion is the version MarshalBinary writes.
const MetadataFormatVersion = 1

var metadataMagic = [4]byte{'V', 'F', 'K', 'C'}

const metadataHeaderLen = 4 + 2 + 4
const metadataTrailerLen = 4

// StateSize returns the total size of all the state handles.
func (m *CheckpointMetadata) StateSize() int64 {
	var n int64
	for _, op := range m.Operators {
		for _, st := range op.Subtasks {
			for _, h := range st.Handles {
				if h != nil {
					n += h.StateSize()
				}
			}
		}
	}
	return n
}

// Handles returns every state handle of the checkpoint, operator by operator.
func (m *CheckpointMetadata) Handles() []StreamStateHandle {
	var hs []StreamStateHandle
	for _, op := range m.Operators {
		for _, st := range op.Subtasks {
			hs = append(hs, st.Handles...)
		}
	}
	return hs
}

// WriteTo writes the binary form (see CheckpointMetadata) to w, typically a
// CheckpointMetadataOutputStream. It implements io.WriterTo.
func (m *CheckpointMetadata) WriteTo(w io.Writer) (int64, error) {
	b, err := m.MarshalBinary()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// ReadCheckpointMetadata reads metadata from r and decodes it with
// UnmarshalCheckpointMetadata. It reads no more than the header announces (plus
// one byte, to detect trailing data), so a pointer to a large file that is not
// metadata costs a 10-byte read, not the whole file in memory.
func ReadCheckpointMetadata(r io.Reader, checkpointDir vfs.Path, opts ...Option) (*CheckpointMetadata, error) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(r, metadataHeaderLen)); err != nil {
		return nil, fmt.Errorf("checkpointstorage: reading metadata: %w", err)
	}
	header := buf.Bytes()
	if len(header) == metadataHeaderLen && [4]byte(header[:4]) == metadataMagic &&
		binary.BigEndian.Uint16(header[4:]) == MetadataFormatVersion {
		want := int64(binary.BigEndian.Uint32(header[6:])) + metadataTrailerLen
		n, err := buf.ReadFrom(io.LimitReader(r, want+1))
		if err != nil {
			return nil, fmt.Errorf("checkpointstorage: reading metadata: %w", err)
		}
		if n > want {
			return nil, corrupt("unexpected bytes after the end of the metadata (the header announces %d bytes)", metadataHeaderLen+want)
		}
	}
	return UnmarshalCheckpointMetadata(buf.Bytes(), checkpointDir, opts...)
}

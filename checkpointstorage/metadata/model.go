package metadata

import (
	"encoding/hex"
	"time"
)

// Format tells the two metadata formats apart.
type Format int

const (
	// FormatVfskit is vfskit's own checksummed format, the one vfskit's
	// checkpoint storage writes (the zero value, so a Metadata built by hand is
	// written in it).
	FormatVfskit Format = iota
	// FormatFlink is Apache Flink's format (magic number 0x4960672d).
	FormatFlink
)

// String returns "vfskit" or "flink".
func (f Format) String() string {
	if f == FormatFlink {
		return "flink"
	}
	return "vfskit"
}

// Metadata is the content of a checkpoint's or savepoint's _metadata file, in
// either format: Flink's CheckpointMetadata (checkpoint id, master states,
// operator states, checkpoint properties) and what vfskit's own format
// records (the same tree with vfskit's stream handles per subtask, the job id
// and the time).
type Metadata struct {
	// Format is the format the metadata was decoded from, and the one
	// Marshal writes.
	Format Format
	// Version is the format version: 2 to 7 for Flink, 1 for vfskit. Zero
	// means the newest version of Format.
	Version int
	// CheckpointID is the checkpoint's id (≥ 0).
	CheckpointID int64
	// MasterStates are Flink's master hook states.
	MasterStates []MasterState
	// Operators holds the state of each operator, in file order.
	Operators []Operator
	// Properties is Flink's CheckpointProperties, recorded from version 4 on
	// (nil before, and in vfskit's format).
	Properties *Properties

	// JobID is the job the checkpoint belongs to (vfskit's format only).
	JobID [16]byte
	// Timestamp is when the checkpoint was triggered (vfskit's format only).
	Timestamp time.Time
	// IsSavepoint tells a savepoint from a checkpoint in vfskit's format;
	// for Flink's see Type.
	IsSavepoint bool
}

// MasterState is the state of one of Flink's master hooks.
type MasterState struct {
	// Name identifies the hook.
	Name string
	// Version is the version of the hook's serializer.
	Version int32
	// Data is the hook's state.
	Data []byte
}

// OperatorID is Flink's 16-byte operator id as stored: the lower long, then
// the upper long, both big-endian.
type OperatorID [16]byte

// String is the lower-case hex of the 16 bytes (Flink's
// OperatorID.toHexString()).
func (id OperatorID) String() string { return hex.EncodeToString(id[:]) }

// Operator is the state of one operator (Flink's OperatorState).
type Operator struct {
	// ID is Flink's operator id (zero in vfskit's format).
	ID OperatorID
	// Name is the operator's name (Flink's format from version 5 on; "" when
	// absent).
	Name string
	// UID is the operator's uid (Flink's format from version 5 on; "" when
	// absent). In vfskit's format it is the operator's id string.
	UID string
	// Parallelism and MaxParallelism are the operator's when the checkpoint was
	// taken.
	Parallelism    int
	MaxParallelism int
	// CoordinatorState is the operator coordinator's state (Flink ≥ 3; nil
	// when none).
	CoordinatorState *ByteStreamStateHandle
	// FullyFinished marks an operator whose subtasks had all finished (Flink
	// ≥ 3); it has no subtasks and no coordinator state.
	FullyFinished bool
	// Subtasks holds the subtasks that had not finished, by ascending index
	// (the order Flink writes them in).
	Subtasks []Subtask
	// FinishedSubtasks holds the indexes of the subtasks that had finished
	// (Flink ≥ 3; they have no state), ascending.
	FinishedSubtasks []int
}

// Subtask is one parallel subtask of an operator that had not finished
// (Flink's OperatorSubtaskState). In Flink's format its state is State; in
// vfskit's format it is Handles.
type Subtask struct {
	// Index is the subtask's index.
	Index int
	// State is the subtask's state in Flink's format; nil when the subtask
	// has none (and in vfskit's format).
	State *SubtaskState
	// Handles are the subtask's state in vfskit's format, in the order the
	// subtask wrote it: *ByteStreamStateHandle, *FileStateHandle,
	// *RelativeFileStateHandle or a Convertible of another package.
	Handles []Handle
}

// SubtaskState is the state of a subtask in Flink's format: the four state
// slots and the channel state.
type SubtaskState struct {
	// ManagedOperatorState and RawOperatorState are nil or an
	// *OperatorStreamStateHandle / *FileMergingOperatorStreamStateHandle.
	ManagedOperatorState Handle
	RawOperatorState     Handle
	// ManagedKeyedState and RawKeyedState are nil or a keyed state handle
	// (*KeyGroupsStateHandle, *KeyGroupsSavepointStateHandle,
	// *IncrementalRemoteKeyedStateHandle, *ChangelogStateBackendHandle,
	// *InMemoryChangelogStateHandle, *ChangelogStateHandleStreamImpl).
	ManagedKeyedState Handle
	RawKeyedState     Handle
	// InputChannelState and OutputChannelState are the in-flight data of an
	// unaligned checkpoint (Flink ≥ 3): *InputChannelStateHandle,
	// *MergedInputChannelStateHandle (Flink ≥ 6) in the first,
	// *ResultSubpartitionStateHandle, *MergedResultSubpartitionStateHandle
	// (Flink ≥ 6) in the second.
	InputChannelState  []Handle
	OutputChannelState []Handle
	// RefCheckpointID is the checkpoint a regional checkpoint reused this
	// subtask's state from (Flink ≥ 7; nil when none).
	RefCheckpointID *int64
}

// handles returns the four slots.
func (s *SubtaskState) slots() []Handle {
	return []Handle{s.ManagedOperatorState, s.RawOperatorState, s.ManagedKeyedState, s.RawKeyedState}
}

func (s *SubtaskState) empty() bool {
	if !isNil(s.ManagedOperatorState) || !isNil(s.RawOperatorState) || !isNil(s.ManagedKeyedState) || !isNil(s.RawKeyedState) {
		return false
	}
	return len(s.InputChannelState) == 0 && len(s.OutputChannelState) == 0 && s.RefCheckpointID == nil
}

// Properties is what this package reads of Flink's Java-serialized
// CheckpointProperties (the tail of versions 4 and later).
type Properties struct {
	// Raw is the Java-serialized object as stored; the encoder writes it back
	// unchanged.
	Raw []byte
	// SnapshotType is the class of the checkpoint type: "checkpoint",
	// "savepoint" or "unknown".
	SnapshotType string
	// Name is the snapshot type's name ("Checkpoint", "Savepoint", "Suspend
	// Savepoint", "Terminate Savepoint", "Full Checkpoint", ...).
	Name string
	// SavepointFormat is "canonical" or "native" for a savepoint, "" otherwise.
	SavepointFormat string
}

// Type returns "checkpoint", "savepoint" or "unknown" (a Flink file before
// version 4 does not say).
func (m *Metadata) Type() string {
	switch {
	case m.Format == FormatVfskit && m.IsSavepoint:
		return "savepoint"
	case m.Format == FormatVfskit:
		return "checkpoint"
	case m.Properties != nil && m.Properties.SnapshotType != "":
		return m.Properties.SnapshotType
	}
	return "unknown"
}

// SavepointFormat returns "canonical" or "native" for a Flink savepoint whose
// file says so, "" otherwise.
func (m *Metadata) SavepointFormat() string {
	if m.Properties == nil {
		return ""
	}
	return m.Properties.SavepointFormat
}

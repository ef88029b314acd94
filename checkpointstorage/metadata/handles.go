package metadata

import (
	"reflect"
	"strconv"
)

// Handle is a state handle of the model: one of this package's handle types,
// or (in vfskit's format) a Convertible of another package. Nil interface
// values stand for Flink's null handles.
type Handle interface {
	// StateSize is the size of the state in bytes, as Flink computes it.
	StateSize() int64
}

// Convertible is implemented by handle types of other packages that stand for
// one of this package's stream handles (checkpointstorage's live handles do),
// so a model can hold them and the encoders write them.
type Convertible interface {
	Handle
	MetadataHandle() Handle
}

// KindName returns the simple name of the handle's type, which is Flink's
// class name for this package's handles ("RelativeFileStateHandle",
// "KeyGroupsStateHandle", ...; "EmptyFileMergingOperatorStreamStateHandle"
// for a FileMergingOperatorStreamStateHandle marked Empty), and "" for nil.
func KindName(h Handle) string {
	if h == nil {
		return ""
	}
	if fm, ok := h.(*FileMergingOperatorStreamStateHandle); ok && fm != nil && fm.Empty {
		return "EmptyFileMergingOperatorStreamStateHandle"
	}
	t := reflect.TypeOf(h)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// ByteStreamStateHandle is state held inline in the metadata (tag 1).
type ByteStreamStateHandle struct {
	// Name identifies the state; Flink uses the path the state would have
	// had as a file. It is not a file reference.
	Name string
	// Data is the state.
	Data []byte
}

// StateSize is len(Data).
func (h *ByteStreamStateHandle) StateSize() int64 { return int64(len(h.Data)) }

// FileStateHandle is state in a file at an absolute path (tag 2).
type FileStateHandle struct {
	// Path is the file's path exactly as recorded (Flink's Path.toString(),
	// e.g. "file:/state/checkpoint/<job>/shared/<uuid>" or "hdfs://nn/x").
	Path string
	// Size is the state's size in bytes.
	Size int64
	// Shared records that the file is shared state (vfskit's format only;
	// Flink's format does not record the scope of a file).
	Shared bool
}

// StateSize is Size.
func (h *FileStateHandle) StateSize() int64 { return h.Size }

// RelativeFileStateHandle is state in a file inside the checkpoint's
// exclusive directory, recorded by its path relative to it (tag 6).
type RelativeFileStateHandle struct {
	// RelativePath is the file's path relative to the exclusive directory
	// (Flink and vfskit write a plain file name).
	RelativePath string
	// Size is the state's size in bytes.
	Size int64
}

// StateSize is Size.
func (h *RelativeFileStateHandle) StateSize() int64 { return h.Size }

// SegmentFileStateHandle is a segment of a merged physical file (Flink's
// file merging, tag 15).
type SegmentFileStateHandle struct {
	// Path is the physical file, as recorded.
	Path string
	// StartPos is the segment's offset in the file; Size its length.
	StartPos int64
	Size     int64
	// Scope is the ordinal of Flink's CheckpointedStateScope (0 exclusive, 1
	// shared).
	Scope int32
	// LogicalFileID is the segment's logical file id.
	LogicalFileID string
}

// StateSize is Size.
func (h *SegmentFileStateHandle) StateSize() int64 { return h.Size }

// EmptySegmentFileStateHandle is the placeholder for empty state under file
// merging (tag 16).
type EmptySegmentFileStateHandle struct{}

// StateSize is 0.
func (h *EmptySegmentFileStateHandle) StateSize() int64 { return 0 }

// KeyGroupRange is a range of key groups as stored: the first key group and
// the number of key groups.
type KeyGroupRange struct {
	// Start is the first key group.
	Start int32
	// Count is the number of key groups.
	Count int32
}

// KeyGroupsStateHandle is keyed state in a stream with one offset per key
// group (tags 3 and 12).
type KeyGroupsStateHandle struct {
	// Range is the key groups the handle holds.
	Range KeyGroupRange
	// Offsets holds the offset of each key group of Range in Delegate.
	Offsets []int64
	// Delegate is the stream holding the state.
	Delegate Handle
	// StateHandleID is the handle's id (tag 12; "" for tag 3).
	StateHandleID string
	// Legacy marks the older form without a state handle id (tag 3).
	Legacy bool
}

// StateSize is the delegate's size.
func (h *KeyGroupsStateHandle) StateSize() int64 { return sizeOf(h.Delegate) }

// KeyGroupsSavepointStateHandle is keyed state of a savepoint (tag 7).
type KeyGroupsSavepointStateHandle struct {
	// Range is the key groups the handle holds.
	Range KeyGroupRange
	// Offsets holds the offset of each key group of Range in Delegate.
	Offsets []int64
	// Delegate is the stream holding the state.
	Delegate Handle
}

// StateSize is the delegate's size.
func (h *KeyGroupsSavepointStateHandle) StateSize() int64 { return sizeOf(h.Delegate) }

// DistributionMode is Flink's OperatorStateHandle.Mode.
type DistributionMode uint8

// Flink's distribution modes, by ordinal.
const (
	SplitDistribute DistributionMode = iota
	Union
	Broadcast
)

// String returns Flink's name of the mode.
func (m DistributionMode) String() string {
	switch m {
	case SplitDistribute:
		return "SPLIT_DISTRIBUTE"
	case Union:
		return "UNION"
	case Broadcast:
		return "BROADCAST"
	}
	return "MODE(" + strconv.Itoa(int(m)) + ")"
}

// NamedState is one state of an operator state handle: its name, how it is
// redistributed and the offsets of its partitions in the stream.
type NamedState struct {
	// Name is the state's name (e.g. "SourceReaderState").
	Name string
	// Mode is how the state is redistributed on rescaling.
	Mode DistributionMode
	// Offsets are the offsets of the state's partitions in the stream.
	Offsets []int64
}

// OperatorStreamStateHandle is operator state in a stream (tag 4).
type OperatorStreamStateHandle struct {
	// States are the operator's named states, in file order.
	States []NamedState
	// Delegate is the stream holding the state.
	Delegate Handle
}

// StateSize is the delegate's size.
func (h *OperatorStreamStateHandle) StateSize() int64 { return sizeOf(h.Delegate) }

// DirectoryStateHandle is a directory of file-merged state (Flink's
// DirectoryStreamStateHandle). Flink's metadata records only its path.
type DirectoryStateHandle struct {
	// Path is the directory's path as recorded (Flink's Path.toString()).
	Path string
}

// FileMergingOperatorStreamStateHandle is operator state under file merging
// (tag 17): an operator stream state handle plus the task-owned and shared
// directories, which the checkpoint keeps referenced. Flink writes it only in
// the two operator state slots, and its delegate is always a segment
// (SegmentFileStateHandle or EmptySegmentFileStateHandle).
type FileMergingOperatorStreamStateHandle struct {
	// TaskOwnedDir and SharedDir are the directories of merged files.
	TaskOwnedDir DirectoryStateHandle
	SharedDir    DirectoryStateHandle
	// States are the operator's named states, in file order.
	States []NamedState
	// Delegate is the segment holding the state.
	Delegate Handle
	// Empty marks Flink's EmptyFileMergingOperatorStreamStateHandle, the
	// placeholder a subtask without operator state writes so that the
	// directories stay referenced (Flink writes it with no states and an
	// EmptySegmentFileStateHandle delegate).
	Empty bool
}

// StateSize is the delegate's size.
func (h *FileMergingOperatorStreamStateHandle) StateSize() int64 { return sizeOf(h.Delegate) }

// HandleAndLocalPath is a file of an incremental checkpoint and its name in
// the backend's local directory.
type HandleAndLocalPath struct {
	// LocalPath is the file's name in the backend's local directory.
	LocalPath string
	// Handle is where the file is stored.
	Handle Handle
}

// IncrementalRemoteKeyedStateHandle is the state of an incremental RocksDB
// checkpoint (tags 5 and 11).
type IncrementalRemoteKeyedStateHandle struct {
	// CheckpointID is the checkpoint that wrote the handle.
	CheckpointID int64
	// BackendID identifies the backend instance (a UUID).
	BackendID string
	// Range is the key groups the handle holds.
	Range KeyGroupRange
	// CheckpointedSize is the incremental size (tag 11 only).
	CheckpointedSize int64
	// MetaStateHandle is the backend's metadata file.
	MetaStateHandle Handle
	// SharedState (SST files) and PrivateState (MANIFEST, OPTIONS, ...).
	SharedState  []HandleAndLocalPath
	PrivateState []HandleAndLocalPath
	// StateHandleID is the handle's id (tag 11; "" for tag 5).
	StateHandleID string
	// Legacy marks the older form (tag 5) without checkpointed size and id.
	Legacy bool
}

// StateSize is the size of the metadata, shared and private files.
func (h *IncrementalRemoteKeyedStateHandle) StateSize() int64 {
	n := sizeOf(h.MetaStateHandle)
	for _, l := range [][]HandleAndLocalPath{h.SharedState, h.PrivateState} {
		for _, f := range l {
			n += sizeOf(f.Handle)
		}
	}
	return n
}

// ChangelogStateBackendHandle is the state of the changelog state backend
// (tags 8 and 14): a materialized part and the changes since.
type ChangelogStateBackendHandle struct {
	// Range is the key groups the handle holds.
	Range KeyGroupRange
	// CheckpointedSize is the incremental size.
	CheckpointedSize int64
	// Materialized are the keyed handles of the materialized part;
	// NonMaterialized the changelog handles since.
	Materialized    []Handle
	NonMaterialized []Handle
	// MaterializationID identifies the materialization.
	MaterializationID int64
	// CheckpointID is the checkpoint (tag 14; equal to MaterializationID
	// for tag 8).
	CheckpointID int64
	// StateHandleID is the handle's id.
	StateHandleID string
	// Legacy marks the older form (tag 8) without the checkpoint id.
	Legacy bool
}

// StateSize is the size of both parts.
func (h *ChangelogStateBackendHandle) StateSize() int64 {
	var n int64
	for _, l := range [][]Handle{h.Materialized, h.NonMaterialized} {
		for _, x := range l {
			n += sizeOf(x)
		}
	}
	return n
}

// StateChange is one change of an in-memory changelog.
type StateChange struct {
	// KeyGroup is the change's key group (-1 for a metadata change).
	KeyGroup int32
	// Data is the change.
	Data []byte
}

// InMemoryChangelogStateHandle is a changelog held inline (tag 9).
type InMemoryChangelogStateHandle struct {
	// Range is the key groups the handle holds.
	Range KeyGroupRange
	// From and To are the sequence numbers the changes span.
	From, To int64
	// Changes are the changes, in order.
	Changes []StateChange
	// StateHandleID is the handle's id.
	StateHandleID string
}

// StateSize is the total size of the changes.
func (h *InMemoryChangelogStateHandle) StateSize() int64 {
	var n int64
	for _, c := range h.Changes {
		n += int64(len(c.Data))
	}
	return n
}

// OffsetHandle is a stream of a changelog and the offset of the changes in it.
type OffsetHandle struct {
	// Offset is where the changes start in the stream.
	Offset int64
	// Handle is the stream.
	Handle Handle
}

// ChangelogStateHandleStreamImpl is a changelog in streams (tags 10 and 13).
type ChangelogStateHandleStreamImpl struct {
	// Range is the key groups the handle holds.
	Range KeyGroupRange
	// Handles are the streams holding the changes.
	Handles []OffsetHandle
	// Size and CheckpointedSize are the full and incremental sizes.
	Size             int64
	CheckpointedSize int64
	// StateHandleID is the handle's id.
	StateHandleID string
	// StorageID is the changelog storage ("filesystem" for tag 10).
	StorageID string
	// Legacy marks the older form (tag 10) without the storage id.
	Legacy bool
}

// StateSize is Size.
func (h *ChangelogStateHandleStreamImpl) StateSize() int64 { return h.Size }

// ChannelState is the in-flight data of one channel of an unaligned
// checkpoint.
type ChannelState struct {
	// Subtask is the subtask's index.
	Subtask int32
	// Gate and Channel are the input gate and channel index, or the
	// partition and subpartition index.
	Gate, Channel int32
	// Offsets are where the channel's buffers start in Delegate.
	Offsets []int64
	// Size is the state's size in bytes.
	Size int64
	// Delegate is the stream holding the data.
	Delegate Handle
}

// StateSize is Size.
func (h *ChannelState) StateSize() int64 { return h.Size }

// InputChannelStateHandle is the in-flight data of an input channel.
type InputChannelStateHandle struct{ ChannelState }

// ResultSubpartitionStateHandle is the in-flight data of a result
// subpartition.
type ResultSubpartitionStateHandle struct{ ChannelState }

// MergedChannelState is the in-flight data of several channels in one stream
// (Flink ≥ 6).
type MergedChannelState struct {
	// Subtask is the subtask's index.
	Subtask int32
	// Size is the state's size in bytes.
	Size int64
	// Delegate is the stream holding the data.
	Delegate Handle
	// ChannelOffsets is Flink's serialized per-channel offsets, as stored.
	ChannelOffsets []byte
}

// StateSize is Size.
func (h *MergedChannelState) StateSize() int64 { return h.Size }

// MergedInputChannelStateHandle is the in-flight data of several input
// channels.
type MergedInputChannelStateHandle struct{ MergedChannelState }

// MergedResultSubpartitionStateHandle is the in-flight data of several result
// subpartitions.
type MergedResultSubpartitionStateHandle struct{ MergedChannelState }

func sizeOf(h Handle) int64 {
	if isNil(h) {
		return 0
	}
	return h.StateSize()
}

// isNil reports a nil interface or a typed nil pointer.
func isNil(h Handle) bool {
	if h == nil {
		return true
	}
	v := reflect.ValueOf(h)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

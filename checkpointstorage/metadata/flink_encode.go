package metadata

import (
	"encoding/binary"
	"fmt"
	"math"
)

type flinkEncoder struct {
	b       []byte
	version int
	err     error
	depth   int
	where   string
}

func (e *flinkEncoder) fail(format string, args ...any) {
	if e.err == nil {
		e.err = invalid("%s%s", e.where, fmt.Sprintf(format, args...))
	}
}

func (e *flinkEncoder) u8(v byte) { e.b = append(e.b, v) }

// tag writes the legacy or the current tag of a handle kind.
func (e *flinkEncoder) tag(legacy bool, old, current byte) {
	if legacy {
		e.u8(old)
	} else {
		e.u8(current)
	}
}

// boolean writes a Java boolean (writeBoolean) or a presence marker.
func (e *flinkEncoder) boolean(v bool) {
	if v {
		e.u8(1)
	} else {
		e.u8(0)
	}
}
func (e *flinkEncoder) i32(v int32) { e.b = binary.BigEndian.AppendUint32(e.b, uint32(v)) }
func (e *flinkEncoder) i64(v int64) { e.b = binary.BigEndian.AppendUint64(e.b, uint64(v)) }

func (e *flinkEncoder) int(v int, what string) {
	if v < math.MinInt32 || v > math.MaxInt32 {
		e.fail("%s %d does not fit in an int", what, v)
	}
	e.i32(int32(v))
}

func (e *flinkEncoder) length(n int, what string) {
	if n > math.MaxInt32 {
		e.fail("%s has %d elements, more than an int counts", what, n)
	}
	e.i32(int32(n))
}

func (e *flinkEncoder) utf(s, what string) {
	var err error
	if e.b, err = appendModifiedUTF8(e.b, s, what); err != nil && e.err == nil {
		e.err = err
	}
}

func (e *flinkEncoder) bytes(b []byte, what string) {
	e.length(len(b), what)
	e.b = append(e.b, b...)
}

func (e *flinkEncoder) int64s(v []int64) {
	for _, x := range v {
		e.i64(x)
	}
}

func encodeFlink(m *Metadata) ([]byte, error) {
	v := m.Version
	if v == 0 {
		v = MaxFlinkVersion
	}
	if v < MinFlinkVersion || v > MaxFlinkVersion {
		return nil, invalid("Flink metadata format version %d, this package writes versions %d to %d", v, MinFlinkVersion, MaxFlinkVersion)
	}
	if m.CheckpointID < 0 {
		return nil, invalid("invalid checkpoint ID: %d", m.CheckpointID)
	}
	e := &flinkEncoder{b: make([]byte, 0, 1024), version: v}
	e.i32(FlinkMagic)
	e.i32(int32(v))
	e.i64(m.CheckpointID)
	e.length(len(m.MasterStates), "master states")
	for _, ms := range m.MasterStates {
		e.masterState(ms)
	}
	e.length(len(m.Operators), "operators")
	for i := range m.Operators {
		e.where = fmt.Sprintf("operator %d (%s): ", i, m.Operators[i].ID)
		e.operator(&m.Operators[i])
	}
	e.where = ""
	switch {
	case v >= 4 && (m.Properties == nil || len(m.Properties.Raw) == 0):
		e.fail("version %d needs the checkpoint properties (Properties.Raw)", v)
	case v >= 4:
		e.b = append(e.b, m.Properties.Raw...)
	case m.Properties != nil:
		e.fail("version %d has no checkpoint properties (they came with version 4)", v)
	}
	if e.err != nil {
		return nil, e.err
	}
	return e.b, nil
}

func (e *flinkEncoder) masterState(ms MasterState) {
	in := &flinkEncoder{version: e.version}
	in.i32(ms.Version)
	in.utf(ms.Name, "master state name")
	in.bytes(ms.Data, "master state data")
	if in.err != nil && e.err == nil {
		e.err = in.err
	}
	e.i32(int32(masterStateMagic - 1<<32))
	e.bytes(in.b, "master state")
}

func (e *flinkEncoder) operator(op *Operator) {
	if e.version >= 5 {
		e.utf(op.Name, "operator name")
		e.utf(op.UID, "operator uid")
	} else if op.Name != "" || op.UID != "" {
		e.fail("version %d records no operator name or uid (they came with version 5)", e.version)
	}
	e.b = append(e.b, op.ID[:]...)
	e.int(op.Parallelism, "parallelism")
	e.int(op.MaxParallelism, "max parallelism")
	if e.version == 2 {
		if op.CoordinatorState != nil || op.FullyFinished || len(op.FinishedSubtasks) > 0 {
			e.fail("version 2 records no coordinator state and no finished operator or subtask (they came with version 3)")
		}
		e.i32(1) // the legacy chain length
		e.length(len(op.Subtasks), "subtasks")
		last := -1
		for i := range op.Subtasks {
			st := &op.Subtasks[i]
			e.index(st.Index, &last)
			e.i32(int32(st.Index))
			e.i64(-1) // the legacy duration
			e.i32(0)  // the number of legacy states
			e.subtask(st)
		}
		return
	}
	if op.CoordinatorState != nil {
		e.stream(op.CoordinatorState)
	} else {
		e.u8(tagNull)
	}
	if op.FullyFinished {
		if op.CoordinatorState != nil || len(op.Subtasks)+len(op.FinishedSubtasks) > 0 {
			e.fail("a fully finished operator has no coordinator state and no subtasks")
		}
		e.i32(-1)
		return
	}
	e.length(len(op.Subtasks)+len(op.FinishedSubtasks), "subtasks")
	// Both lists are ascending: merge them by index, as Flink writes them.
	last, fin := -1, op.FinishedSubtasks
	for i := range op.Subtasks {
		st := &op.Subtasks[i]
		for len(fin) > 0 && fin[0] < st.Index {
			e.index(fin[0], &last)
			e.i32(int32(-(fin[0] + 1)))
			fin = fin[1:]
		}
		e.index(st.Index, &last)
		e.i32(int32(st.Index))
		e.subtask(st)
	}
	for _, f := range fin {
		e.index(f, &last)
		e.i32(int32(-(f + 1)))
	}
}

// index checks that subtask indexes ascend and fit in an int.
func (e *flinkEncoder) index(i int, last *int) {
	if i < 0 || i > math.MaxInt32 {
		e.fail("subtask index %d out of range", i)
	}
	if i <= *last {
		e.fail("subtask index %d after %d: subtasks and finished subtasks must ascend", i, *last)
	}
	*last = i
}

func (e *flinkEncoder) subtask(st *Subtask) {
	if len(st.Handles) > 0 {
		e.fail("subtask %d holds vfskit-format handles (Subtask.Handles), which Flink's format cannot record", st.Index)
	}
	s := st.State
	if s == nil {
		s = &SubtaskState{}
	}
	for _, h := range []Handle{s.ManagedOperatorState, s.RawOperatorState} {
		if isNil(h) {
			e.i32(0)
			continue
		}
		e.i32(1)
		e.operatorHandle(h)
	}
	e.keyed(s.ManagedKeyedState)
	e.keyed(s.RawKeyedState)
	if e.version >= 3 {
		e.channels(s.InputChannelState, true)
		e.channels(s.OutputChannelState, false)
	} else if len(s.InputChannelState)+len(s.OutputChannelState) > 0 {
		e.fail("version 2 records no channel state (it came with version 3)")
	}
	switch {
	case e.version >= 7:
		e.boolean(s.RefCheckpointID != nil)
		if s.RefCheckpointID != nil {
			e.i64(*s.RefCheckpointID)
		}
	case s.RefCheckpointID != nil:
		e.fail("version %d records no reference checkpoint id (it came with version 7)", e.version)
	}
}

// open enters one level of nesting and writes the null tag for a nil handle;
// it reports whether the caller writes h. The caller leaves the level (defer
// e.depth--) whatever it says.
func (e *flinkEncoder) open(h Handle) bool {
	if !e.enter() {
		return false
	}
	if isNil(h) {
		e.u8(tagNull)
		return false
	}
	return true
}

func (e *flinkEncoder) enter() bool {
	e.depth++
	if e.depth > maxNesting {
		e.fail("state handles nested deeper than %d", maxNesting)
	}
	return e.err == nil
}

func (e *flinkEncoder) keyGroupOffsets(r KeyGroupRange, offsets []int64) {
	if r.Count < 0 || int(r.Count) != len(offsets) {
		e.fail("key group range of %d key groups with %d offsets", r.Count, len(offsets))
	}
	e.keyRange(r)
	e.int64s(offsets)
}

func (e *flinkEncoder) keyRange(r KeyGroupRange) {
	if r.Count < 0 {
		e.fail("negative number of key groups %d", r.Count)
	}
	e.i32(r.Start)
	e.i32(r.Count)
}

// stream writes a stream state handle.
func (e *flinkEncoder) stream(h Handle) {
	defer func() { e.depth-- }()
	if !e.open(h) {
		return
	}
	switch h := unwrap(h).(type) {
	case *ByteStreamStateHandle:
		e.u8(tagByteStream)
		e.utf(h.Name, "byte stream handle name")
		e.bytes(h.Data, "byte stream handle data")
	case *FileStateHandle:
		e.u8(tagFile)
		e.i64(h.Size)
		e.utf(h.Path, "file path")
	case *RelativeFileStateHandle:
		e.u8(tagRelative)
		e.utf(h.RelativePath, "relative path")
		e.i64(h.Size)
	case *KeyGroupsStateHandle:
		e.u8(tagKeyGroups)
		e.keyGroupOffsets(h.Range, h.Offsets)
		e.stream(h.Delegate)
	case *SegmentFileStateHandle:
		e.u8(tagSegmentFile)
		e.i64(h.StartPos)
		e.i64(h.Size)
		if h.Scope < 0 || h.Scope > 1 {
			e.fail("segment scope ordinal %d, expected 0 (exclusive) or 1 (shared)", h.Scope)
		}
		e.i32(h.Scope)
		e.utf(h.Path, "segment file path")
		e.utf(h.LogicalFileID, "segment logical file id")
	case *EmptySegmentFileStateHandle:
		e.u8(tagEmptySegmentFile)
	default:
		e.fail("%s (%T) is not a stream state handle", KindName(h), h)
	}
}

// keyed writes a keyed state handle.
func (e *flinkEncoder) keyed(h Handle) {
	defer func() { e.depth-- }()
	if !e.open(h) {
		return
	}
	switch h := h.(type) {
	case *KeyGroupsStateHandle:
		e.tag(h.Legacy, tagKeyGroups, tagKeyGroupsV2)
		e.keyGroupOffsets(h.Range, h.Offsets)
		e.stream(h.Delegate)
		if !h.Legacy {
			e.utf(h.StateHandleID, "state handle id")
		}
	case *KeyGroupsSavepointStateHandle:
		e.u8(tagSavepointKeyGroups)
		e.keyGroupOffsets(h.Range, h.Offsets)
		e.stream(h.Delegate)
	case *IncrementalRemoteKeyedStateHandle:
		e.tag(h.Legacy, tagIncremental, tagIncrementalV2)
		e.i64(h.CheckpointID)
		e.utf(h.BackendID, "backend id")
		e.keyRange(h.Range)
		if !h.Legacy {
			e.i64(h.CheckpointedSize)
		}
		e.stream(h.MetaStateHandle)
		for _, l := range [][]HandleAndLocalPath{h.SharedState, h.PrivateState} {
			e.length(len(l), "incremental state files")
			for _, f := range l {
				e.utf(f.LocalPath, "local path")
				e.stream(f.Handle)
			}
		}
		if !h.Legacy {
			e.utf(h.StateHandleID, "state handle id")
		}
	case *ChangelogStateBackendHandle:
		e.tag(h.Legacy, tagChangelog, tagChangelogV2)
		e.keyRange(h.Range)
		e.i64(h.CheckpointedSize)
		for _, l := range [][]Handle{h.Materialized, h.NonMaterialized} {
			e.length(len(l), "changelog handles")
			for _, x := range l {
				if isNil(x) {
					e.fail("null handle in a changelog state backend handle")
				}
				e.keyed(x)
			}
		}
		e.i64(h.MaterializationID)
		if !h.Legacy {
			e.i64(h.CheckpointID)
		}
		e.utf(h.StateHandleID, "state handle id")
	case *InMemoryChangelogStateHandle:
		e.u8(tagChangelogBytes)
		e.keyRange(h.Range)
		e.i64(h.From)
		e.i64(h.To)
		e.length(len(h.Changes), "changes")
		for _, c := range h.Changes {
			e.i32(c.KeyGroup)
			e.bytes(c.Data, "change")
		}
		e.utf(h.StateHandleID, "state handle id")
	case *ChangelogStateHandleStreamImpl:
		e.tag(h.Legacy, tagChangelogFile, tagChangelogFileV2)
		e.keyRange(h.Range)
		e.length(len(h.Handles), "changelog streams")
		for _, x := range h.Handles {
			e.i64(x.Offset)
			e.stream(x.Handle)
		}
		e.i64(h.Size)
		e.i64(h.CheckpointedSize)
		e.utf(h.StateHandleID, "state handle id")
		if !h.Legacy {
			e.utf(h.StorageID, "storage identifier")
		}
	default:
		e.fail("%s (%T) is not a keyed state handle", KindName(h), h)
	}
}

func (e *flinkEncoder) operatorHandle(h Handle) {
	switch h := h.(type) {
	case *OperatorStreamStateHandle:
		e.u8(tagOperatorStream)
		e.namedStates(h.States)
		e.stream(h.Delegate)
	case *FileMergingOperatorStreamStateHandle:
		e.u8(tagFileMergingOperator)
		e.namedStates(h.States)
		e.utf(h.TaskOwnedDir.Path, "task-owned directory")
		e.utf(h.SharedDir.Path, "shared directory")
		e.boolean(h.Empty)
		if !isSegment(h.Delegate) {
			e.fail("file-merging operator state delegate is %s, expected a SegmentFileStateHandle or EmptySegmentFileStateHandle", kindOrNull(h.Delegate))
		}
		e.stream(h.Delegate)
	default:
		e.fail("%s (%T) is not an operator state handle", KindName(h), h)
	}
}

func (e *flinkEncoder) namedStates(states []NamedState) {
	e.length(len(states), "operator states")
	for _, s := range states {
		e.utf(s.Name, "operator state name")
		if s.Mode > Broadcast {
			e.fail("unknown distribution mode %d of operator state %q", s.Mode, s.Name)
		}
		e.u8(byte(s.Mode))
		e.length(len(s.Offsets), "partition offsets")
		e.int64s(s.Offsets)
	}
}

func (e *flinkEncoder) channels(l []Handle, input bool) {
	e.length(len(l), "channel state handles")
	for _, h := range l {
		if isNil(h) {
			e.fail("nil channel state handle")
			return
		}
		var c *ChannelState
		var m *MergedChannelState
		var t byte
		switch h := h.(type) {
		case *InputChannelStateHandle:
			c, t = &h.ChannelState, chanInput
		case *ResultSubpartitionStateHandle:
			c, t = &h.ChannelState, chanOutput
		case *MergedInputChannelStateHandle:
			m, t = &h.MergedChannelState, chanMergedInput
		case *MergedResultSubpartitionStateHandle:
			m, t = &h.MergedChannelState, chanMergedOutput
		}
		switch {
		case t == 0:
			e.fail("%T is not a channel state handle", h)
			return
		case input != (t == chanInput || t == chanMergedInput):
			e.fail("%s among the wrong (input/output) channel state", KindName(h))
			return
		case m != nil && e.version < 6:
			e.fail("version %d records no merged channel state (it came with version 6)", e.version)
			return
		}
		if e.version >= 6 {
			e.u8(t)
		}
		if m != nil {
			e.i32(m.Subtask)
			e.i64(m.Size)
			e.stream(m.Delegate)
			e.bytes(m.ChannelOffsets, "serialized channel offsets")
			continue
		}
		e.i32(c.Subtask)
		e.i32(c.Gate)
		e.i32(c.Channel)
		e.length(len(c.Offsets), "channel offsets")
		e.int64s(c.Offsets)
		e.i64(c.Size)
		e.stream(c.Delegate)
	}
}

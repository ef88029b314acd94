package metadata

import (
	"encoding/binary"
	"unsafe"
)

type flinkDecoder struct {
	reader
	version int
	depth   int
}

// decodeFlink decodes a whole Flink _metadata file (magic already checked).
func decodeFlink(data []byte) (*Metadata, error) {
	m, _, err := decodeFlinkPart(data)
	return m, err
}

// decodeFlinkPart decodes data, a Flink file or a prefix of one: short says
// that the error is that data ended too soon, so a longer prefix may decode.
func decodeFlinkPart(data []byte) (*Metadata, bool, error) {
	m, d := decodeFlinkReader(data)
	return m, d.err != nil && d.short, d.err
}

func decodeFlinkReader(data []byte) (*Metadata, *flinkDecoder) {
	d := &flinkDecoder{reader: newReader(data)}
	d.off = 4
	v := d.i32("version")
	if d.err != nil {
		return nil, d
	}
	if v < MinFlinkVersion || v > MaxFlinkVersion {
		d.err, d.short = unsupportedFlink(v), false
		return nil, d
	}
	d.version = int(v)
	m := &Metadata{Format: FormatFlink, Version: d.version}
	at := d.off
	m.CheckpointID = d.i64("checkpoint id")
	if d.err == nil && m.CheckpointID < 0 {
		d.failAt(at, "invalid checkpoint ID: %d", m.CheckpointID)
	}
	n := d.count("number of master states", 8)
	if n > 0 && d.alloc(n, unsafe.Sizeof(MasterState{})) {
		m.MasterStates = make([]MasterState, 0, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		m.MasterStates = append(m.MasterStates, d.masterState())
	}
	n = d.count("number of operator states", 29)
	if n > 0 && d.alloc(n, unsafe.Sizeof(Operator{})) {
		m.Operators = make([]Operator, 0, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		m.Operators = append(m.Operators, d.operator())
	}
	if d.version >= 4 && d.err == nil {
		m.Properties = parseProperties(&d.reader)
	}
	if d.err == nil && d.left() > 0 {
		d.fail("%d unexpected bytes after the end of the metadata", d.left())
	}
	if d.err != nil {
		return nil, d
	}
	return m, d
}

func (d *flinkDecoder) masterState() MasterState {
	at := d.off
	if magic := uint32(d.i32("master state magic number")); d.err == nil && magic != masterStateMagic {
		d.failAt(at, "incorrect magic number %#x in master state byte sequence", magic)
	}
	at = d.off
	n := d.i32("master state length")
	if d.err == nil && n <= 0 {
		d.failAt(at, "found zero or negative length %d for master state bytes", n)
	}
	body := d.take(int(n), "master state")
	if d.err != nil || !d.charge(2*int64(n)) {
		return MasterState{}
	}
	in := &reader{b: body}
	ms := MasterState{Version: in.i32("master state version"), Name: in.utf("master state name"), Data: in.bytes("master state data")}
	if in.err == nil && in.left() != 0 {
		in.fail("found %d trailing bytes in master state", in.left())
	}
	if in.err != nil {
		d.failAt(at+4, "master state: %v", in.err)
	}
	return ms
}

func (d *flinkDecoder) operator() Operator {
	var op Operator
	if d.version >= 5 {
		op.Name = d.utf("operator name")
		op.UID = d.utf("operator uid")
	}
	copy(op.ID[:], d.take(16, "operator id"))
	op.Parallelism = int(d.i32("parallelism"))
	op.MaxParallelism = int(d.i32("max parallelism"))
	if d.version == 2 {
		at := d.off
		if chain := d.i32("chain length"); d.err == nil && chain != 1 {
			d.failAt(at, "legacy chain length %d, Flink writes 1", chain)
		}
		n := d.count("number of subtask states", 26)
		if !d.alloc(n, unsafe.Sizeof(Subtask{})) {
			return op
		}
		op.Subtasks = make([]Subtask, 0, n)
		last := -1
		for i := 0; i < n && d.err == nil; i++ {
			idx := d.subtaskIndex(&last)
			at := d.off
			if dur := d.i64("legacy duration"); d.err == nil && dur != -1 {
				d.failAt(at, "legacy duration %d, Flink writes -1", dur)
			}
			at = d.off
			if legacy := d.i32("number of legacy states"); d.err == nil && legacy != 0 {
				d.failAt(at, "%d legacy states (Flink ≤ 1.1 'Checkpointed' state is no longer supported)", legacy)
			}
			op.Subtasks = append(op.Subtasks, Subtask{Index: idx, State: d.subtask()})
		}
		return op
	}
	at := d.off
	if c := d.stream("coordinator state"); c != nil {
		bs, ok := c.(*ByteStreamStateHandle)
		if !ok {
			d.failAt(at, "coordinator state is a %s, expected a ByteStreamStateHandle", KindName(c))
		}
		op.CoordinatorState = bs
	}
	at = d.off
	n := d.i32("number of subtask states")
	if d.err != nil {
		return op
	}
	if n < 0 {
		if n != -1 {
			d.failAt(at, "number of subtask states %d: Flink writes -1 for a fully finished operator", n)
		}
		if op.CoordinatorState != nil {
			d.failAt(at, "Coordinator State should be null for fully finished operator state")
		}
		op.FullyFinished = true
		return op
	}
	d.off = at
	n32 := d.count("number of subtask states", 4)
	last := -1
	for i := 0; i < n32 && d.err == nil; i++ {
		at := d.off
		if idx := d.i32("subtask index"); idx < 0 {
			d.off = at
			d.finishedIndex(&last)
			if op.FinishedSubtasks == nil {
				// Each finished subtask takes 4 bytes: preallocate, as
				// growing a large slice allocates several times its size.
				c := min(n32-i, d.left()/4+1)
				if !d.alloc(c, unsafe.Sizeof(0)) {
					break
				}
				op.FinishedSubtasks = make([]int, 0, c)
			}
			op.FinishedSubtasks = append(op.FinishedSubtasks, last)
			continue
		}
		d.off = at
		idx := d.subtaskIndex(&last)
		if op.Subtasks == nil {
			// Any other subtask takes at least 22 bytes.
			c := min(n32-i, d.left()/18+1)
			if !d.alloc(c, unsafe.Sizeof(Subtask{})) {
				break
			}
			op.Subtasks = make([]Subtask, 0, c)
		}
		op.Subtasks = append(op.Subtasks, Subtask{Index: idx, State: d.subtask()})
	}
	return op
}

// subtaskIndex reads a subtask index, which must be greater than the last
// one: Flink writes subtasks in ascending order (a hash map keyed by index,
// sized for the parallelism), and so must a file that encodes back to itself.
func (d *flinkDecoder) subtaskIndex(last *int) int {
	at := d.off
	idx := int(d.i32("subtask index"))
	if d.err == nil && idx <= *last {
		d.failAt(at, "subtask index %d after %d: Flink writes subtasks by ascending index", idx, *last)
	}
	*last = idx
	return idx
}

// finishedIndex reads the negative index -(i+1) of finished subtask i.
func (d *flinkDecoder) finishedIndex(last *int) {
	at := d.off
	idx := int(-int64(d.i32("finished subtask index")) - 1)
	if d.err == nil && idx <= *last {
		d.failAt(at, "subtask index %d after %d: Flink writes subtasks by ascending index", idx, *last)
	}
	*last = idx
}

// subtask reads the state of a subtask that had not finished; nil when it has
// none.
func (d *flinkDecoder) subtask() *SubtaskState {
	var st SubtaskState
	st.ManagedOperatorState = d.operatorSlot("managed operator state")
	st.RawOperatorState = d.operatorSlot("raw operator state")
	st.ManagedKeyedState = d.keyed("managed keyed state")
	st.RawKeyedState = d.keyed("raw keyed state")
	if d.version >= 3 {
		st.InputChannelState = d.channels(true)
		st.OutputChannelState = d.channels(false)
	}
	if d.version >= 7 && d.boolean("reference checkpoint id marker") {
		id := d.i64("reference checkpoint id")
		st.RefCheckpointID = &id
	}
	if st.empty() || !d.alloc(1, unsafe.Sizeof(st)) {
		return nil
	}
	p := new(SubtaskState)
	*p = st
	return p
}

// operatorSlot reads the presence int and the operator state handle of one
// of the two operator state slots.
func (d *flinkDecoder) operatorSlot(what string) Handle {
	at := d.off
	switch has := d.i32s(what, " flag"); {
	case d.err != nil || has == 0:
		return nil
	case has != 1:
		d.failAt(at, "%s flag %d, Flink writes 0 or 1", what, has)
		return nil
	}
	at = d.off
	h := d.operatorHandle(what)
	if h == nil && d.err == nil {
		d.failAt(at, "%s is flagged present but null", what)
	}
	return h
}

func (d *flinkDecoder) badTag(at int, tag byte, kind string) {
	if int(tag) <= maxTag {
		d.failAt(at, "handle tag %d (%s) where %s is expected", tag, tagNames[tag], kind)
	} else {
		d.failAt(at, "unknown handle tag %d where %s is expected", tag, kind)
	}
}

func (d *flinkDecoder) enter(at int) bool {
	d.depth++
	if d.depth > maxNesting && d.err == nil {
		d.failAt(at, "state handles nested deeper than %d", maxNesting)
	}
	return d.err == nil
}

func (d *flinkDecoder) leave() { d.depth-- }

// handle reads a tagged handle of one kind (what names the slot, kind the
// handle kind for errors): the null tag is nil, and body reads the handle a
// tag introduces, reporting false for a tag the kind does not have. Each
// handle enters one level of nesting.
func (d *flinkDecoder) handle(what, kind string, body func(tag byte) (Handle, bool)) Handle {
	at := d.off
	tag := d.u8s(what, " handle tag")
	ok := d.enter(at)
	defer d.leave()
	if !ok || tag == tagNull {
		return nil
	}
	h, ok := body(tag)
	if !ok {
		d.badTag(at, tag, kind)
	}
	return d.charged(h)
}

// stream reads a stream state handle (serializeStreamStateHandle).
func (d *flinkDecoder) stream(what string) Handle {
	return d.handle(what, "a stream state handle", d.streamBody)
}

func (d *flinkDecoder) streamBody(tag byte) (Handle, bool) {
	switch tag {
	case tagByteStream:
		h := &ByteStreamStateHandle{Name: d.utf("byte stream handle name")}
		h.Data = d.bytes("byte stream handle data")
		return h, true
	case tagFile:
		h := &FileStateHandle{Size: d.i64("file size")}
		h.Path = d.utf("file path")
		return h, true
	case tagRelative:
		h := &RelativeFileStateHandle{RelativePath: d.utf("relative path")}
		h.Size = d.i64("file size")
		return h, true
	case tagKeyGroups:
		h := &KeyGroupsStateHandle{Legacy: true}
		h.Range, h.Offsets = d.keyGroupOffsets()
		h.Delegate = d.stream("key groups delegate")
		return h, true
	case tagSegmentFile:
		h := &SegmentFileStateHandle{StartPos: d.i64("segment start"), Size: d.i64("segment size")}
		at := d.off
		h.Scope = d.i32("segment scope")
		if d.err == nil && (h.Scope < 0 || h.Scope > 1) {
			d.failAt(at, "segment scope ordinal %d, expected 0 (exclusive) or 1 (shared)", h.Scope)
		}
		h.Path = d.utf("segment file path")
		h.LogicalFileID = d.utf("segment logical file id")
		return h, true
	case tagEmptySegmentFile:
		return &EmptySegmentFileStateHandle{}, true
	}
	return nil, false
}

func (d *flinkDecoder) keyRange() KeyGroupRange {
	at := d.off
	r := KeyGroupRange{Start: d.i32("start key group"), Count: d.i32("number of key groups")}
	if d.err == nil && r.Count < 0 {
		d.failAt(at, "negative number of key groups %d", r.Count)
	}
	return r
}

func (d *flinkDecoder) keyGroupOffsets() (KeyGroupRange, []int64) {
	r := d.keyRange()
	if d.err != nil {
		return r, nil
	}
	return r, d.int64s(int(r.Count), "key group offsets")
}

// keyed reads a keyed state handle (serializeKeyedStateHandle).
func (d *flinkDecoder) keyed(what string) Handle {
	return d.handle(what, "a keyed state handle", d.keyedBody)
}

func (d *flinkDecoder) keyedBody(tag byte) (Handle, bool) {
	switch tag {
	case tagKeyGroups, tagKeyGroupsV2:
		h := &KeyGroupsStateHandle{Legacy: tag == tagKeyGroups}
		h.Range, h.Offsets = d.keyGroupOffsets()
		h.Delegate = d.stream("key groups delegate")
		if !h.Legacy {
			h.StateHandleID = d.utf("state handle id")
		}
		return h, true
	case tagSavepointKeyGroups:
		h := &KeyGroupsSavepointStateHandle{}
		h.Range, h.Offsets = d.keyGroupOffsets()
		h.Delegate = d.stream("key groups delegate")
		return h, true
	case tagIncremental, tagIncrementalV2:
		h := &IncrementalRemoteKeyedStateHandle{Legacy: tag == tagIncremental}
		h.CheckpointID = d.i64("checkpoint id")
		h.BackendID = d.utf("backend id")
		h.Range = d.keyRange()
		if !h.Legacy {
			h.CheckpointedSize = d.i64("checkpointed size")
		}
		h.MetaStateHandle = d.stream("meta state handle")
		h.SharedState = d.localPaths("shared state")
		h.PrivateState = d.localPaths("private state")
		if !h.Legacy {
			h.StateHandleID = d.utf("state handle id")
		}
		return h, true
	case tagChangelog, tagChangelogV2:
		h := &ChangelogStateBackendHandle{Legacy: tag == tagChangelog}
		h.Range = d.keyRange()
		h.CheckpointedSize = d.i64("checkpointed size")
		h.Materialized = d.keyedList("materialized state", false)
		h.NonMaterialized = d.keyedList("non-materialized state", true)
		h.MaterializationID = d.i64("materialization id")
		h.CheckpointID = h.MaterializationID
		if !h.Legacy {
			h.CheckpointID = d.i64("checkpoint id")
		}
		h.StateHandleID = d.utf("state handle id")
		return h, true
	case tagChangelogBytes:
		h := &InMemoryChangelogStateHandle{Range: d.keyRange(), From: d.i64("sequence number from"), To: d.i64("sequence number to")}
		n := d.count("number of changes", 8)
		if n > 0 && d.alloc(n, unsafe.Sizeof(StateChange{})) {
			h.Changes = make([]StateChange, 0, n)
		}
		for i := 0; i < n && d.err == nil; i++ {
			h.Changes = append(h.Changes, StateChange{KeyGroup: d.i32("change key group"), Data: d.bytes("change")})
		}
		h.StateHandleID = d.utf("state handle id")
		return h, true
	case tagChangelogFile, tagChangelogFileV2:
		h := &ChangelogStateHandleStreamImpl{Range: d.keyRange(), Legacy: tag == tagChangelogFile}
		n := d.count("number of changelog handles", 9)
		if n > 0 && d.alloc(n, unsafe.Sizeof(OffsetHandle{})) {
			h.Handles = make([]OffsetHandle, 0, n)
		}
		for i := 0; i < n && d.err == nil; i++ {
			off := d.i64("changelog offset")
			h.Handles = append(h.Handles, OffsetHandle{Offset: off, Handle: d.stream("changelog stream")})
		}
		h.Size = d.i64("changelog size")
		h.CheckpointedSize = d.i64("checkpointed size")
		h.StateHandleID = d.utf("state handle id")
		h.StorageID = "filesystem"
		if !h.Legacy {
			h.StorageID = d.utf("storage identifier")
		}
		return h, true
	}
	return nil, false
}

// keyedList reads a counted list of non-null keyed handles; changelogOnly
// requires changelog handles (the non-materialized part).
func (d *flinkDecoder) keyedList(what string, changelogOnly bool) []Handle {
	n := d.counts("number of handles of ", what, 1)
	var l []Handle
	if n > 0 && d.alloc(n, unsafe.Sizeof(Handle(nil))) {
		l = make([]Handle, 0, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		at := d.off
		h := d.keyed(what)
		if d.err != nil {
			break
		}
		switch h.(type) {
		case nil:
			d.failAt(at, "null handle in the %s of a changelog handle", what)
		case *InMemoryChangelogStateHandle, *ChangelogStateHandleStreamImpl:
		default:
			if changelogOnly {
				d.failAt(at, "%s in the %s of a changelog handle, expected a changelog state handle", KindName(h), what)
			}
		}
		l = append(l, h)
	}
	return l
}

func (d *flinkDecoder) localPaths(what string) []HandleAndLocalPath {
	n := d.counts("number of files of ", what, 3)
	var l []HandleAndLocalPath
	if n > 0 && d.alloc(n, unsafe.Sizeof(HandleAndLocalPath{})) {
		l = make([]HandleAndLocalPath, 0, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		p := d.utf("local path")
		l = append(l, HandleAndLocalPath{LocalPath: p, Handle: d.stream(what)})
	}
	return l
}

// operatorHandle reads an operator state handle
// (serializeOperatorStateHandle).
func (d *flinkDecoder) operatorHandle(what string) Handle {
	return d.handle(what, "an operator state handle", d.operatorBody)
}

func (d *flinkDecoder) operatorBody(tag byte) (Handle, bool) {
	switch tag {
	case tagOperatorStream:
		h := &OperatorStreamStateHandle{States: d.namedStates()}
		h.Delegate = d.stream("operator state delegate")
		return h, true
	case tagFileMergingOperator:
		// The named states come first, then the two directories and the
		// empty flag, then the delegate, which Flink requires to be a
		// segment.
		h := &FileMergingOperatorStreamStateHandle{States: d.namedStates()}
		h.TaskOwnedDir.Path = d.utf("task-owned directory")
		h.SharedDir.Path = d.utf("shared directory")
		h.Empty = d.boolean("empty file-merging operator state flag")
		at := d.off
		h.Delegate = d.stream("file-merging operator state delegate")
		if d.err == nil && !isSegment(h.Delegate) {
			d.failAt(at, "file-merging operator state delegate is %s, expected a SegmentFileStateHandle or EmptySegmentFileStateHandle", kindOrNull(h.Delegate))
		}
		return h, true
	}
	return nil, false
}

func (d *flinkDecoder) namedStates() []NamedState {
	n := d.count("number of operator state names", 7)
	var l []NamedState
	if n > 0 && d.alloc(n, unsafe.Sizeof(NamedState{})) {
		l = make([]NamedState, 0, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		s := NamedState{Name: d.utf("operator state name")}
		at := d.off
		s.Mode = DistributionMode(d.u8("distribution mode"))
		if d.err == nil && s.Mode > Broadcast {
			d.failAt(at, "unknown distribution mode %d of operator state %q", s.Mode, s.Name)
		}
		s.Offsets = d.int64s(d.count("number of partition offsets", 8), "partition offsets")
		l = append(l, s)
	}
	return l
}

// channels reads a collection of input (or output) channel state handles.
func (d *flinkDecoder) channels(input bool) []Handle {
	what := "output channel state"
	if input {
		what = "input channel state"
	}
	n := d.counts("number of handles of ", what, 18)
	var l []Handle
	if n > 0 && d.alloc(n, unsafe.Sizeof(Handle(nil))) {
		l = make([]Handle, 0, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		if d.version < 6 {
			l = append(l, d.channel(input))
			continue
		}
		at := d.off
		t := d.u8s(what, " handle type")
		switch {
		case d.err != nil:
		case input && t == chanInput, !input && t == chanOutput:
			l = append(l, d.channel(input))
		case input && t == chanMergedInput, !input && t == chanMergedOutput:
			m := MergedChannelState{Subtask: d.i32("subtask index"), Size: d.i64("channel state size")}
			m.Delegate = d.stream("channel state delegate")
			m.ChannelOffsets = d.bytes("serialized channel offsets")
			if input {
				l = append(l, &MergedInputChannelStateHandle{m})
			} else {
				l = append(l, &MergedResultSubpartitionStateHandle{m})
			}
		default:
			d.failAt(at, "unknown %s handle type %d", what, t)
		}
	}
	return l
}

func (d *flinkDecoder) channel(input bool) Handle { return d.charged(d.channel0(input)) }

// charged charges for the handle just decoded and returns it.
func (d *flinkDecoder) charged(h Handle) Handle {
	d.chargeHandle(h)
	return h
}

func (d *flinkDecoder) channel0(input bool) Handle {
	c := ChannelState{Subtask: d.i32("subtask index"), Gate: d.i32("gate or partition index"), Channel: d.i32("channel index")}
	c.Offsets = d.int64s(d.count("number of channel offsets", 8), "channel offsets")
	c.Size = d.i64("channel state size")
	c.Delegate = d.stream("channel state delegate")
	if input {
		return &InputChannelStateHandle{c}
	}
	return &ResultSubpartitionStateHandle{c}
}

func isFlink(data []byte) bool {
	return len(data) >= 4 && binary.BigEndian.Uint32(data) == FlinkMagic
}

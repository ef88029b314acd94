package metadata_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	m "github.com/vfskit/vfskit/checkpointstorage/metadata"
)

// props is a hand-made Java serialization stream of a minimal
// CheckpointProperties whose checkpointType is a SavepointType named
// "Savepoint" with formatType NATIVE (the shape Flink writes, fewer fields).
func props(t testing.TB) *m.Properties {
	t.Helper()
	var b bytes.Buffer
	w16 := func(v uint16) { b.Write(binary.BigEndian.AppendUint16(nil, v)) }
	str := func(s string) { w16(uint16(len(s))); b.WriteString(s) }
	b.Write([]byte{0xAC, 0xED, 0x00, 0x05})
	b.WriteByte(0x73) // TC_OBJECT
	b.WriteByte(0x72) // TC_CLASSDESC
	str("org.apache.flink.runtime.checkpoint.CheckpointProperties")
	b.Write(make([]byte, 8)) // serialVersionUID
	b.WriteByte(0x02)        // SC_SERIALIZABLE
	w16(2)
	b.WriteByte('Z')
	str("forced")
	b.WriteByte('L')
	str("checkpointType")
	b.WriteByte(0x74) // TC_STRING: the field's class name
	str("Lorg/apache/flink/runtime/checkpoint/SnapshotType;")
	b.WriteByte(0x78) // TC_ENDBLOCKDATA
	b.WriteByte(0x70) // no superclass
	b.WriteByte(0)    // forced = false
	b.WriteByte(0x73) // checkpointType: TC_OBJECT
	b.WriteByte(0x72)
	str("org.apache.flink.runtime.checkpoint.SavepointType")
	b.Write(make([]byte, 8))
	b.WriteByte(0x02)
	w16(2)
	b.WriteByte('L')
	str("formatType")
	b.WriteByte(0x74)
	str("Lorg/apache/flink/core/execution/SavepointFormatType;")
	b.WriteByte('L')
	str("name")
	b.WriteByte(0x74)
	str("Ljava/lang/String;")
	b.WriteByte(0x78)
	b.WriteByte(0x70)
	b.WriteByte(0x7E) // formatType: TC_ENUM
	b.WriteByte(0x72)
	str("org.apache.flink.core.execution.SavepointFormatType")
	b.Write(make([]byte, 8))
	b.WriteByte(0x12) // SC_SERIALIZABLE | SC_ENUM
	w16(0)
	b.WriteByte(0x78)
	b.WriteByte(0x72)
	str("java.lang.Enum")
	b.Write(make([]byte, 8))
	b.WriteByte(0x12)
	w16(0)
	b.WriteByte(0x78)
	b.WriteByte(0x70)
	b.WriteByte(0x74)
	str("NATIVE")
	b.WriteByte(0x74) // name
	str("Savepoint")
	return &m.Properties{Raw: b.Bytes(), SnapshotType: "savepoint", Name: "Savepoint", SavepointFormat: "native"}
}

func ptr[T any](v T) *T { return &v }

func file(p string, n int64) m.Handle { return &m.FileStateHandle{Path: p, Size: n} }

// everyKind is a model that uses every handle kind Flink defines (tags 1 to
// 17, the legacy variants and the empty file-merging operator state
// included) in version v.
func everyKind(t testing.TB, v int) *m.Metadata {
	rel := &m.RelativeFileStateHandle{RelativePath: "a1b2", Size: 10}
	inline := &m.ByteStreamStateHandle{Name: "file:/x/inline ü\x00𝄞", Data: []byte{1, 2, 3}}
	kgr := m.KeyGroupRange{Start: 4, Count: 2}
	md := &m.Metadata{
		Format: m.FormatFlink, Version: v, CheckpointID: 42,
		MasterStates: []m.MasterState{{Name: "hook", Version: 3, Data: []byte("master")}},
		Operators: []m.Operator{
			{
				ID: m.OperatorID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, Parallelism: 4, MaxParallelism: 128,
				CoordinatorState: &m.ByteStreamStateHandle{Name: "coordinator", Data: []byte("c")},
				Subtasks: []m.Subtask{
					{Index: 0, State: &m.SubtaskState{
						ManagedOperatorState: &m.OperatorStreamStateHandle{
							States:   []m.NamedState{{Name: "SourceReaderState", Mode: m.SplitDistribute, Offsets: []int64{0, 7}}, {Name: "u", Mode: m.Union}},
							Delegate: rel},
						RawOperatorState: &m.FileMergingOperatorStreamStateHandle{
							TaskOwnedDir: m.DirectoryStateHandle{Path: "s3://b/taskowned/x"},
							SharedDir:    m.DirectoryStateHandle{Path: "s3://b/shared/x"},
							States:       []m.NamedState{{Name: "b", Mode: m.Broadcast, Offsets: []int64{3}}},
							Delegate:     &m.SegmentFileStateHandle{Path: "s3://b/shared/seg", StartPos: 100, Size: 20, Scope: 1, LogicalFileID: "lf-1"}},
						ManagedKeyedState:  &m.KeyGroupsStateHandle{Range: kgr, Offsets: []int64{0, 5}, Delegate: &m.KeyGroupsStateHandle{Legacy: true, Range: kgr, Offsets: []int64{1, 2}, Delegate: inline}, StateHandleID: "id-1"},
						RawKeyedState:      &m.KeyGroupsSavepointStateHandle{Range: kgr, Offsets: []int64{9, 8}, Delegate: &m.EmptySegmentFileStateHandle{}},
						InputChannelState:  []m.Handle{&m.InputChannelStateHandle{ChannelState: m.ChannelState{Subtask: 0, Gate: 1, Channel: 2, Offsets: []int64{0}, Size: 9, Delegate: file("file:/in", 9)}}},
						OutputChannelState: []m.Handle{&m.ResultSubpartitionStateHandle{ChannelState: m.ChannelState{Subtask: 0, Gate: 3, Channel: 4, Size: 1, Delegate: inline}}},
					}},
					{Index: 2, State: &m.SubtaskState{
						ManagedOperatorState: &m.FileMergingOperatorStreamStateHandle{Empty: true,
							TaskOwnedDir: m.DirectoryStateHandle{Path: "s3://b/taskowned/x"},
							SharedDir:    m.DirectoryStateHandle{Path: "s3://b/shared/y"},
							Delegate:     &m.EmptySegmentFileStateHandle{}},
						ManagedKeyedState: &m.IncrementalRemoteKeyedStateHandle{CheckpointID: 41, BackendID: "b9a7", Range: kgr, CheckpointedSize: 77,
							MetaStateHandle: rel,
							SharedState:     []m.HandleAndLocalPath{{LocalPath: "000001.sst", Handle: file("file:/state/shared/1", 1000)}},
							PrivateState:    []m.HandleAndLocalPath{{LocalPath: "MANIFEST", Handle: inline}},
							StateHandleID:   "id-2"},
						RawKeyedState: &m.IncrementalRemoteKeyedStateHandle{Legacy: true, CheckpointID: 3, BackendID: "old", Range: kgr, MetaStateHandle: file("hdfs:/m", 3)},
					}},
					{Index: 3},
				},
				FinishedSubtasks: []int{1},
			},
			{
				ID: m.OperatorID{9}, Name: "Map", UID: "map-uid", Parallelism: 1, MaxParallelism: 1,
				Subtasks: []m.Subtask{{Index: 0, State: &m.SubtaskState{
					ManagedKeyedState: &m.ChangelogStateBackendHandle{Range: kgr, CheckpointedSize: 5,
						Materialized: []m.Handle{&m.KeyGroupsStateHandle{Range: kgr, Offsets: []int64{1, 1}, StateHandleID: "m"}},
						NonMaterialized: []m.Handle{
							&m.InMemoryChangelogStateHandle{Range: kgr, From: 1, To: 2, Changes: []m.StateChange{{KeyGroup: -1, Data: []byte("meta")}, {KeyGroup: 5, Data: nil}}, StateHandleID: "c1"},
							&m.ChangelogStateHandleStreamImpl{Range: kgr, Handles: []m.OffsetHandle{{Offset: 4, Handle: rel}}, Size: 10, CheckpointedSize: 10, StateHandleID: "c2", StorageID: "filesystem"},
							&m.ChangelogStateHandleStreamImpl{Legacy: true, Range: kgr, Size: 1, StateHandleID: "c3", StorageID: "filesystem"},
						},
						MaterializationID: 7, CheckpointID: 8, StateHandleID: "cb"},
					RawKeyedState:   &m.ChangelogStateBackendHandle{Legacy: true, Range: kgr, MaterializationID: 6, CheckpointID: 6, StateHandleID: "old"},
					RefCheckpointID: ptr(int64(40)),
				}}},
			},
			{ID: m.OperatorID{7}, Parallelism: 2, MaxParallelism: 2, FullyFinished: true},
		},
		Properties: props(t),
	}
	if v >= 6 {
		st := md.Operators[0].Subtasks[0].State
		st.InputChannelState = append(st.InputChannelState, &m.MergedInputChannelStateHandle{MergedChannelState: m.MergedChannelState{Subtask: 0, Size: 3, Delegate: rel, ChannelOffsets: []byte{1, 2}}})
		st.OutputChannelState = append(st.OutputChannelState, &m.MergedResultSubpartitionStateHandle{MergedChannelState: m.MergedChannelState{Subtask: 0, Size: 4, Delegate: inline}})
	}
	if v < 7 {
		md.Operators[1].Subtasks[0].State.RefCheckpointID = nil
	}
	if v < 5 {
		md.Operators[1].Name, md.Operators[1].UID = "", ""
	}
	if v < 4 {
		md.Properties = nil
	}
	return md
}

// TestEveryHandleKindRoundTrips: versions 3 to 7 (6 and 7 have no real
// files) encode every handle kind and decode to the same model, and the
// bytes hold each tag.
func TestEveryHandleKindRoundTrips(t *testing.T) {
	for v := 3; v <= 7; v++ {
		want := everyKind(t, v)
		b, err := m.Encode(want)
		require.NoError(t, err, "version %d", v)
		require.Equal(t, []byte{0x49, 0x60, 0x67, 0x2d, 0, 0, 0, byte(v)}, b[:8])
		got, err := m.Decode(b)
		require.NoError(t, err, "version %d", v)
		require.Equal(t, want, got, "version %d", v)
		again, err := m.Encode(got)
		require.NoError(t, err)
		require.Equal(t, b, again)
		kinds := map[string]bool{}
		for _, h := range got.Handles() {
			kinds[m.KindName(h)] = true
		}
		require.Len(t, kinds, 16+map[bool]int{true: 2}[v >= 6], "version %d: %v", v, kinds)
	}
	require.Equal(t, "savepoint", everyKind(t, 7).Type())
	require.Equal(t, "native", everyKind(t, 7).SavepointFormat())
}

// TestVersion7ByHand decodes a version 7 file written out byte by byte: one
// operator with name and uid, one subtask with a reference checkpoint id, one
// finished subtask, merged input channel state (version 6's type byte), and
// a properties tail of TC_NULL.
func TestVersion7ByHand(t *testing.T) {
	b := []byte{
		0x49, 0x60, 0x67, 0x2d, 0, 0, 0, 7, // magic, version
		0, 0, 0, 0, 0, 0, 0, 5, // checkpoint id
		0, 0, 0, 0, // master states
		0, 0, 0, 1, // operators
		0, 1, 'n', 0, 1, 'u', // name, uid
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, // id
		0, 0, 0, 2, 0, 0, 0, 8, // parallelism, max parallelism
		0,          // no coordinator state
		0, 0, 0, 2, // two subtasks
		0, 0, 0, 0, // subtask 0
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // no operator state, no keyed state
		0, 0, 0, 1, // one input channel handle
		3,                                  // merged input channel state
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, // subtask 0, size 6
		6, 0, 1, 'f', 0, 0, 0, 0, 0, 0, 0, 6, // relative file "f", 6 bytes
		0, 0, 0, 1, 0xAB, // channel offsets
		0, 0, 0, 0, // no output channel state
		1, 0, 0, 0, 0, 0, 0, 0, 3, // reference checkpoint 3
		0xFF, 0xFF, 0xFF, 0xFE, // subtask 1 finished
		0xAC, 0xED, 0, 5, 0x70, // properties: null
	}
	md, err := m.Decode(b)
	require.NoError(t, err)
	require.Equal(t, 7, md.Version)
	op := md.Operators[0]
	require.Equal(t, "n", op.Name)
	require.Equal(t, "u", op.UID)
	require.Equal(t, "0102030405060708090a0b0c0d0e0f10", op.ID.String())
	require.Equal(t, []int{1}, op.FinishedSubtasks)
	require.Equal(t, int64(3), *op.Subtasks[0].State.RefCheckpointID)
	require.Equal(t, &m.MergedInputChannelStateHandle{MergedChannelState: m.MergedChannelState{Size: 6,
		Delegate: &m.RelativeFileStateHandle{RelativePath: "f", Size: 6}, ChannelOffsets: []byte{0xAB}}}, op.Subtasks[0].State.InputChannelState[0])
	require.Equal(t, "unknown", md.Type())
	require.Equal(t, []m.FileRef{{Path: "f", Reference: m.Relative, Size: 6, Handle: &m.RelativeFileStateHandle{RelativePath: "f", Size: 6}}}, md.Files())
	again, err := m.Encode(md)
	require.NoError(t, err)
	require.Equal(t, b, again)

	// Version 6 has no reference checkpoint id: the same subtask without the
	// marker byte.
	v6 := append([]byte{}, b...)
	v6[7] = 6
	i := bytes.Index(v6, []byte{1, 0, 0, 0, 0, 0, 0, 0, 3, 0xFF})
	v6 = append(v6[:i], v6[i+9:]...)
	md, err = m.Decode(v6)
	require.NoError(t, err)
	require.Nil(t, md.Operators[0].Subtasks[0].State.RefCheckpointID)
	// A marker other than 0 or 1 is corrupt.
	bad := append([]byte{}, b...)
	bad[bytes.Index(bad, []byte{1, 0, 0, 0, 0, 0, 0, 0, 3, 0xFF})] = 2
	_, err = m.Decode(bad)
	require.ErrorIs(t, err, m.ErrCorrupt)
	require.ErrorContains(t, err, "reference checkpoint id marker 2")
}

// minimalV3 is a version 3 file with one operator and one subtask whose
// managed keyed state handle has the given tag byte (and nothing after it).
func minimalV3(tag byte, rest ...byte) []byte {
	b := []byte{
		0x49, 0x60, 0x67, 0x2d, 0, 0, 0, 3,
		0, 0, 0, 0, 0, 0, 0, 1,
		0, 0, 0, 0,
		0, 0, 0, 1,
	}
	b = append(b, make([]byte, 16)...)
	b = append(b, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0) // par, max, no coordinator, 1 subtask, index 0
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0)                            // no operator state
	b = append(b, tag)
	return append(b, rest...)
}

func TestUnknownTagNamesTagAndOffset(t *testing.T) {
	b := minimalV3(99)
	_, err := m.Decode(b)
	require.ErrorIs(t, err, m.ErrCorrupt)
	require.ErrorContains(t, err, "unknown handle tag 99")
	require.ErrorContains(t, err, "at byte 65")
	require.Equal(t, byte(99), b[65])

	// A tag Flink defines, where it does not belong.
	_, err = m.Decode(minimalV3(6))
	require.ErrorContains(t, err, "handle tag 6 (RelativeFileStateHandle) where a keyed state handle is expected (at byte 65)")

	// Every tag decodes where it belongs: each of 0..17 is either accepted as
	// a keyed handle here or named in the error, never "unknown".
	for tag := byte(0); tag <= 17; tag++ {
		_, err := m.Decode(minimalV3(tag))
		if err != nil {
			require.NotContains(t, err.Error(), "unknown handle tag", "tag %d", tag)
		}
	}
}

func TestTrailingBytesAreAnError(t *testing.T) {
	b, err := m.Encode(everyKind(t, 3))
	require.NoError(t, err)
	_, err = m.Decode(append(b, 0))
	require.ErrorIs(t, err, m.ErrCorrupt)
	require.ErrorContains(t, err, "1 unexpected bytes after the end")
	for n := range len(b) {
		_, err := m.Decode(b[:n])
		require.Error(t, err, "truncated to %d bytes", n)
	}
}

func TestUnsupportedVersions(t *testing.T) {
	for _, v := range []byte{1, 8, 0xFF} {
		_, err := m.Decode([]byte{0x49, 0x60, 0x67, 0x2d, 0, 0, 0, v, 0})
		require.ErrorIs(t, err, m.ErrUnsupportedVersion, "version %d", v)
	}
	_, err := m.Decode([]byte("PK\x03\x04"))
	require.ErrorIs(t, err, m.ErrCorrupt)
	require.ErrorContains(t, err, "wrong magic number 504b0304")
}

// allocDuring returns the bytes allocated while f runs.
func allocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestHugeLengthsFailAtOnce: a 4 GiB (or 2 GiB) length or count in a
// 100-byte file is a clean error, and decoding it allocates next to nothing.
func TestHugeLengthsFailAtOnce(t *testing.T) {
	cases := map[string][]byte{
		"byte stream of 2 GiB":   minimalV3(7, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 'n', 0x7F, 0xFF, 0xFF, 0xFF),
		"byte stream of 4 GiB":   minimalV3(7, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 'n', 0xFF, 0xFF, 0xFF, 0xFF),
		"2^31-1 key groups":      minimalV3(3, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF),
		"2^31-1 shared files":    minimalV3(5, append(make([]byte, 8), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF)...),
		"2^31-1 operators":       {0x49, 0x60, 0x67, 0x2d, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF},
		"2^31-1 master states":   {0x49, 0x60, 0x67, 0x2d, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0x7F, 0xFF, 0xFF, 0xFF},
		"4 GiB master state":     {0x49, 0x60, 0x67, 0x2d, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0xc9, 0x6b, 0x16, 0x96, 0xFF, 0xFF, 0xFF, 0xFF},
		"java long string 2^62":  append(must(m.Encode(&m.Metadata{Format: m.FormatFlink, Version: 4, Properties: &m.Properties{Raw: []byte{0xAC, 0xED, 0, 5, 0x70}}}))[:28], 0xAC, 0xED, 0, 5, 0x7C, 0x40, 0, 0, 0, 0, 0, 0, 0),
		"vfskit 4 GiB body":      {'V', 'F', 'K', 'C', 0, 1, 0xFF, 0xFF, 0xFF, 0xFF},
		"nested 1000 key groups": nestedKeyGroups(1000),
	}
	for name, b := range cases {
		require.Less(t, len(b), 10000, name)
		var err error
		n := allocDuring(func() { _, err = m.Decode(b) })
		require.Error(t, err, name)
		require.True(t, errors.Is(err, m.ErrCorrupt), "%s: %v", name, err)
		require.Less(t, n, uint64(64<<10), "%s allocated %d bytes", name, n)
	}
}

// nestedKeyGroups is a keyed handle of n key-groups handles nested in each
// other (as stream handles, tag 3).
func nestedKeyGroups(n int) []byte {
	var rest []byte
	for range n {
		rest = append(rest, 0, 0, 0, 0, 0, 0, 0, 0, 3)
	}
	return minimalV3(3, rest...)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestEncodeRefusesWhatTheVersionCannotRecord: a model that needs a newer
// version than asked fails with fs.ErrInvalid and says what.
func TestEncodeRefusesWhatTheVersionCannotRecord(t *testing.T) {
	for name, tc := range map[string]struct {
		version int
		edit    func(*m.Metadata)
		msg     string
	}{
		"uid before 5":            {4, func(md *m.Metadata) { md.Operators[0].UID = "x" }, "no operator name or uid"},
		"merged channel before 6": {5, func(md *m.Metadata) { *md = *everyKind(t, 6); md.Version = 5; md.Operators[1].Name = "" }, "no merged channel state"},
		"ref id before 7":         {6, func(md *m.Metadata) { md.Operators[1].Subtasks[0].State.RefCheckpointID = ptr(int64(1)) }, "no reference checkpoint id"},
		"no properties from 4":    {4, func(md *m.Metadata) { md.Properties = nil }, "needs the checkpoint properties"},
		"finished in 2":           {2, func(md *m.Metadata) { *md = *everyKind(t, 3); md.Version = 2 }, "version 2 records no coordinator state"},
		"descending subtasks":     {3, func(md *m.Metadata) { md.Operators[0].FinishedSubtasks = []int{2} }, "must ascend"},
		"vfskit handles":          {3, func(md *m.Metadata) { md.Operators[0].Subtasks[2].Handles = []m.Handle{file("/x", 1)} }, "vfskit-format handles"},
		"keyed in operator slot":  {3, func(md *m.Metadata) { md.Operators[0].Subtasks[0].State.RawOperatorState = file("/x", 1) }, "is not an operator state handle"},
		"offsets mismatch": {3, func(md *m.Metadata) {
			md.Operators[0].Subtasks[0].State.RawKeyedState.(*m.KeyGroupsSavepointStateHandle).Offsets = nil
		}, "2 key groups with 0 offsets"},
		"version 9": {9, func(*m.Metadata) {}, "version 9"},
	} {
		md := everyKind(t, tc.version)
		md.Version = tc.version
		tc.edit(md)
		_, err := m.Encode(md)
		require.ErrorIs(t, err, fs.ErrInvalid, name)
		require.ErrorContains(t, err, tc.msg, name)
	}
}

// TestTypedNilHandles: nil pointers of handle types, wherever they sit, make
// Encode fail or write a null handle, and the summaries skip them; nothing
// panics.
func TestTypedNilHandles(t *testing.T) {
	for _, h := range []m.Handle{(*m.ByteStreamStateHandle)(nil), (*m.KeyGroupsStateHandle)(nil), (*m.InputChannelStateHandle)(nil), (*m.OperatorStreamStateHandle)(nil)} {
		md := everyKind(t, 7)
		st := md.Operators[0].Subtasks[0].State
		st.ManagedKeyedState = h
		st.InputChannelState = append(st.InputChannelState, h)
		md.Operators[1].Subtasks[0].State.ManagedKeyedState.(*m.ChangelogStateBackendHandle).Materialized[0] = h
		require.NotPanics(t, func() {
			_, err := m.Encode(md)
			require.Error(t, err)
			md.StateSize()
			md.Handles()
			md.Files()
			md.HandleCounts()
			m.Children(h)
		})
	}
}

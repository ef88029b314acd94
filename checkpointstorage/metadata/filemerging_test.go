package metadata_test

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	m "github.com/vfskit/vfskit/checkpointstorage/metadata"
)

// Byte sequences of Flink's file-merging handles (FLIP-306, Flink 1.20 on),
// laid out as MetadataV2V3SerializerBase writes them.
var (
	// segment is a SegmentFileStateHandle (tag 15): start position, size,
	// CheckpointedStateScope ordinal, physical file path, logical file id.
	segment = []byte{
		15,
		0, 0, 0, 0, 0, 0, 0, 16, // start position 16
		0, 0, 0, 0, 0, 0, 0, 4, // size 4
		0, 0, 0, 1, // scope SHARED
		0, 3, 'p', '/', 'f', // file path
		0, 2, 'l', '1', // logical file id
	}
	// fileMerging is a FileMergingOperatorStreamStateHandle (tag 17): the
	// named states first, then the task-owned and shared directories, the
	// empty flag (writeBoolean) and the segment delegate.
	fileMerging = append([]byte{
		17,
		0, 0, 0, 1, // one named state
		0, 1, 's', // name
		2,          // BROADCAST
		0, 0, 0, 1, // one offset
		0, 0, 0, 0, 0, 0, 0, 9, // offset 9
		0, 2, 't', 'o', // task-owned directory
		0, 2, 's', 'h', // shared directory
		0, // not empty
	}, segment...)
	// emptyFileMerging is an EmptyFileMergingOperatorStreamStateHandle as
	// Flink creates it: tag 17, no states, the directories, the empty flag
	// set, and an EmptySegmentFileStateHandle (tag 16, nothing after it).
	emptyFileMerging = []byte{
		17,
		0, 0, 0, 0, // no named states
		0, 2, 't', 'o',
		0, 2, 's', 'h',
		1,  // empty
		16, // EmptySegmentFileStateHandle
	}
)

// fileMergingFile is a version 4 file (what Flink 1.20 to 2.0 write) with
// one operator and one subtask holding the given operator state slots and
// managed keyed state (nil: absent), and a null properties tail.
func fileMergingFile(managedOp, rawOp, keyed []byte) []byte {
	b := []byte{
		0x49, 0x60, 0x67, 0x2d, 0, 0, 0, 4, // magic, version
		0, 0, 0, 0, 0, 0, 0, 2, // checkpoint id
		0, 0, 0, 0, // master states
		0, 0, 0, 1, // operators
	}
	b = append(b, make([]byte, 16)...)                      // operator id
	b = append(b, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0) // par, max, no coordinator, 1 subtask
	b = append(b, 0, 0, 0)                                  // subtask index 0
	for _, slot := range [][]byte{managedOp, rawOp} {
		if slot == nil {
			b = append(b, 0, 0, 0, 0)
			continue
		}
		b = append(b, 0, 0, 0, 1)
		b = append(b, slot...)
	}
	if keyed == nil {
		keyed = []byte{0}
	}
	b = append(b, keyed...)
	b = append(b, 0)                      // raw keyed state: null
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0) // no channel state
	return append(b, 0xAC, 0xED, 0, 5, 0x70)
}

// TestFileMergingByHand decodes tags 15, 16 and 17 written out byte by byte
// in Flink's layout, in every slot Flink writes them (a segment also as the
// delegate of a keyed handle), and encodes them back to the same bytes.
func TestFileMergingByHand(t *testing.T) {
	keyed := append([]byte{12, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}, segment...) // key groups v2 [3], offset 0
	keyed = append(keyed, 0, 2, 'i', 'd')
	b := fileMergingFile(fileMerging, emptyFileMerging, keyed)
	md, err := m.Decode(b)
	require.NoError(t, err)
	seg := &m.SegmentFileStateHandle{Path: "p/f", StartPos: 16, Size: 4, Scope: 1, LogicalFileID: "l1"}
	want := &m.SubtaskState{
		ManagedOperatorState: &m.FileMergingOperatorStreamStateHandle{
			States:       []m.NamedState{{Name: "s", Mode: m.Broadcast, Offsets: []int64{9}}},
			TaskOwnedDir: m.DirectoryStateHandle{Path: "to"}, SharedDir: m.DirectoryStateHandle{Path: "sh"},
			Delegate: seg,
		},
		RawOperatorState: &m.FileMergingOperatorStreamStateHandle{
			TaskOwnedDir: m.DirectoryStateHandle{Path: "to"}, SharedDir: m.DirectoryStateHandle{Path: "sh"},
			Empty: true, Delegate: &m.EmptySegmentFileStateHandle{},
		},
		ManagedKeyedState: &m.KeyGroupsStateHandle{Range: m.KeyGroupRange{Start: 3, Count: 1}, Offsets: []int64{0}, Delegate: seg, StateHandleID: "id"},
	}
	require.Equal(t, want, md.Operators[0].Subtasks[0].State)
	require.Equal(t, []string{"s"}, md.Operators[0].StateNames())
	require.Equal(t, map[string]int{
		"FileMergingOperatorStreamStateHandle": 1, "EmptyFileMergingOperatorStreamStateHandle": 1,
		"SegmentFileStateHandle": 2, "EmptySegmentFileStateHandle": 1, "KeyGroupsStateHandle": 1,
	}, md.HandleCounts())
	files := md.Files()
	require.Len(t, files, 2)
	require.Equal(t, m.FileRef{Path: "p/f", Reference: m.Absolute, Size: 4, Offset: 16, Segment: true, Handle: seg}, files[0])
	again, err := m.Encode(md)
	require.NoError(t, err)
	require.Equal(t, b, again)
}

// TestFileMergingRejects: what Flink's serializer neither writes nor reads
// back is corrupt, with the offending value and its offset named.
func TestFileMergingRejects(t *testing.T) {
	at := func(b, part []byte) int { return bytes.Index(b, part) }
	// withDelegate is emptyFileMerging with another delegate.
	withDelegate := func(d ...byte) []byte {
		return fileMergingFile(append(append([]byte{}, emptyFileMerging[:len(emptyFileMerging)-1]...), d...), nil, nil)
	}
	cases := map[string]struct {
		file []byte
		off  func(b []byte) int
		msg  string
	}{
		"empty flag 2": {
			fileMergingFile(append(append(fileMerging[:len(fileMerging)-len(segment)-1:len(fileMerging)-len(segment)-1], 2), segment...), nil, nil),
			func(b []byte) int { return at(b, segment) - 1 },
			"empty file-merging operator state flag 2, expected 0 or 1",
		},
		"file delegate": {
			withDelegate(2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 'f'),
			func(b []byte) int { return at(b, []byte{1, 2, 0, 0}) + 1 },
			"delegate is FileStateHandle, expected a SegmentFileStateHandle",
		},
		"null delegate": {
			withDelegate(0),
			func(b []byte) int { return at(b, []byte{'s', 'h', 1, 0}) + 3 },
			"delegate is null",
		},
		"scope 2": {
			fileMergingFile(append(fileMerging[:len(fileMerging)-len(segment):len(fileMerging)-len(segment)], bytes.Replace(segment, []byte{0, 0, 0, 1}, []byte{0, 0, 0, 2}, 1)...), nil, nil),
			func(b []byte) int { return at(b, []byte{0, 0, 0, 2, 0, 3, 'p'}) },
			"segment scope ordinal 2",
		},
		"file merging as a delegate": {
			withDelegate(17),
			func(b []byte) int { return at(b, []byte{'s', 'h', 1, 17}) + 3 },
			"handle tag 17 (FileMergingOperatorStreamStateHandle) where a stream state handle is expected",
		},
		"segment as operator state": {
			fileMergingFile(segment, nil, nil),
			func(b []byte) int { return at(b, segment) },
			"handle tag 15 (SegmentFileStateHandle) where an operator state handle is expected",
		},
	}
	// In the keyed state slot none of the three is allowed; the slot's tag
	// stands 14 bytes before the end (raw keyed state, channel state, tail).
	for kind, h := range map[string][]byte{"15 (SegmentFileStateHandle)": segment, "16 (EmptySegmentFileStateHandle)": {16}, "17 (FileMergingOperatorStreamStateHandle)": fileMerging} {
		b := fileMergingFile(nil, nil, h)
		cases[kind+" as keyed state"] = struct {
			file []byte
			off  func(b []byte) int
			msg  string
		}{b, func([]byte) int { return len(b) - 14 - len(h) }, "handle tag " + kind + " where a keyed state handle is expected"}
	}
	for name, tc := range cases {
		_, err := m.Decode(tc.file)
		require.ErrorIs(t, err, m.ErrCorrupt, name)
		require.ErrorContains(t, err, tc.msg, name)
		require.ErrorContains(t, err, "at byte "+strconv.Itoa(tc.off(tc.file)), name)
	}
}

// TestFileMergingEncodeRefuses: the encoder writes no file-merging operator
// state Flink could not read back.
func TestFileMergingEncodeRefuses(t *testing.T) {
	for name, d := range map[string]m.Handle{
		"file delegate": &m.FileStateHandle{Path: "/x", Size: 1},
		"null delegate": nil,
	} {
		md := everyKind(t, 4)
		md.Operators[0].Subtasks[0].State.RawOperatorState.(*m.FileMergingOperatorStreamStateHandle).Delegate = d
		_, err := m.Encode(md)
		require.ErrorContains(t, err, "file-merging operator state delegate is", name)
	}
	md := everyKind(t, 4)
	md.Operators[0].Subtasks[0].State.RawOperatorState.(*m.FileMergingOperatorStreamStateHandle).Delegate.(*m.SegmentFileStateHandle).Scope = 2
	_, err := m.Encode(md)
	require.ErrorContains(t, err, "segment scope ordinal 2")
}

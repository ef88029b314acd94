package opstate_test

import (
	"context"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/checkpointstorage/opstate"
	"github.com/vfskit/vfskit/vfs"
)

// operatorMetadata is Flink metadata with one operator whose subtask 0 holds
// the given operator state handle.
func operatorMetadata(h metadata.Handle) *metadata.Metadata {
	return &metadata.Metadata{Format: metadata.FormatFlink, Version: 3, Operators: []metadata.Operator{{
		Parallelism: 1, MaxParallelism: 128,
		Subtasks: []metadata.Subtask{{Index: 0, State: &metadata.SubtaskState{ManagedOperatorState: h}}},
	}}}
}

func TestReadFileStateOnAnyScheme(t *testing.T) {
	ctx := context.Background()
	p, v, err := opstate.EncodeSplit(&opstate.SequenceSplit{ID: "7", From: 3, To: 9})
	require.NoError(t, err)
	entry, err := opstate.EncodeReaderEntry(v, p)
	require.NoError(t, err)
	header := []byte("proxy header!")
	list := []byte{0, 0, 0, 0, 0, 0, 0, 42}
	stream := append(append(append([]byte{}, header...), entry...), list...)
	file := vfs.MustPath("memory://opstate-read/state/op-0")
	fsys, err := vfs.DefaultRegistry().GetPath(ctx, file)
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(ctx, fsys, file, stream, vfs.Overwrite))

	h := &metadata.OperatorStreamStateHandle{
		States: []metadata.NamedState{
			{Name: "counts", Mode: metadata.Union, Offsets: []int64{int64(len(header) + len(entry))}},
			{Name: opstate.SourceReaderStateName, Mode: metadata.SplitDistribute, Offsets: []int64{int64(len(header))}},
		},
		Delegate: &metadata.FileStateHandle{Path: file.String(), Size: int64(len(stream))},
	}
	st, err := opstate.Read(ctx, operatorMetadata(h), vfs.MustPath("memory://opstate-read/chk-1"))
	require.NoError(t, err)
	require.Len(t, st.Operators[0].States, 2)
	counts, reader := st.Operators[0].States[0], st.Operators[0].States[1]
	assert.Equal(t, "UNION", counts.Mode.String())
	assert.Equal(t, list, counts.Subtasks[0].Entries[0].Bytes, "the last entry runs to the stream's end")
	assert.Equal(t, entry, reader.Subtasks[0].Entries[0].Bytes, "an entry runs to the next offset of any state")
	assert.Equal(t, &opstate.SequenceSplit{ID: "7", From: 3, To: 9}, reader.Subtasks[0].Entries[0].Reader.Split)
	ps := st.Positions()
	require.Len(t, ps, 1)
	assert.Equal(t, int64(3), ps[0].Position)

	// A file of another size than recorded is unreadable, not misread.
	h.Delegate = &metadata.FileStateHandle{Path: file.String(), Size: int64(len(stream) + 1)}
	st, err = opstate.Read(ctx, operatorMetadata(h), vfs.MustPath("memory://opstate-read/chk-1"))
	require.NoError(t, err)
	us := st.Unreadable()
	require.Len(t, us, 2)
	assert.ErrorIs(t, us[0].Err, fs.ErrInvalid)
	assert.ErrorContains(t, us[0].Err, "the file holds 52 bytes, the metadata records 53")

	// So is a missing file.
	h.Delegate = &metadata.FileStateHandle{Path: "memory://opstate-read/state/gone", Size: 3}
	st, err = opstate.Read(ctx, operatorMetadata(h), vfs.MustPath("memory://opstate-read/chk-1"))
	require.NoError(t, err)
	require.Len(t, st.Unreadable(), 2)
	assert.ErrorIs(t, st.Unreadable()[0].Err, fs.ErrNotExist)
}

func TestReadRefusesOffsetsOutsideTheStream(t *testing.T) {
	for name, offsets := range map[string][]int64{
		"past the end": {4, 100},
		"negative":     {-1},
		"descending":   {8, 4},
	} {
		h := &metadata.OperatorStreamStateHandle{
			States:   []metadata.NamedState{{Name: "s", Offsets: offsets}},
			Delegate: &metadata.ByteStreamStateHandle{Name: "x", Data: make([]byte, 16)},
		}
		_, err := opstate.Read(context.Background(), operatorMetadata(h), vfs.MustPath("memory://opstate-read/chk-1"))
		assert.ErrorIs(t, err, fs.ErrInvalid, name)
		assert.ErrorContains(t, err, `state "s" entry`, name)
	}
}

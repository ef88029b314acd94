package opstate_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/checkpointstorage/opstate"
	"github.com/vfskit/vfskit/vfs"
)

// treeBytes returns every file below dir with its content.
func treeBytes(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	}))
	return out
}

// fileBackedKafkaSavepoint writes, below a new directory, the enum3 Kafka
// fixture with subtask 1's operator state moved into a relative state file
// and returns the savepoint directory.
func fileBackedKafkaSavepoint(t *testing.T) string {
	data, err := os.ReadFile(filepath.Join(kafkaFixture(t, 3), "_metadata"))
	require.NoError(t, err)
	md, err := metadata.Decode(data)
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "savepoint-246fa1-85f387ecce0c")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	moved := false
	for i := range md.Operators {
		for j := range md.Operators[i].Subtasks {
			st := md.Operators[i].Subtasks[j]
			if st.Index != 1 || st.State == nil || st.State.ManagedOperatorState == nil {
				continue
			}
			h := st.State.ManagedOperatorState.(*metadata.OperatorStreamStateHandle)
			inline := h.Delegate.(*metadata.ByteStreamStateHandle)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "op-state-1"), inline.Data, 0o644))
			h.Delegate = &metadata.RelativeFileStateHandle{RelativePath: "op-state-1", Size: int64(len(inline.Data))}
			moved = true
		}
	}
	require.True(t, moved)
	out, err := metadata.Encode(md)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "_metadata"), out, 0o644))
	return dir
}

func TestSetOffsetsKafka(t *testing.T) {
	ctx := context.Background()
	src := fileBackedKafkaSavepoint(t)
	before := treeBytes(t, filepath.Dir(src))
	dst := filepath.Join(t.TempDir(), "moved")
	r, err := opstate.SetOffsets(ctx, vfs.MustPath("file://"+src), vfs.MustPath("file://"+dst), opstate.Changes{
		MapTopics: map[string]string{"topic": "renamed-topic"},
		Offsets: []opstate.KafkaOffset{
			{Topic: "renamed-topic", Partition: 6, Offset: 123456789}, // in the state file (subtask 1)
			{Topic: "renamed-topic", Partition: 8, Offset: opstate.KafkaEarliestOffset},
		},
	})
	require.NoError(t, err)
	assert.Equal(t, before, treeBytes(t, filepath.Dir(src)), "the source is untouched")
	assert.Equal(t, 1, r.Files)
	assert.Equal(t, 11, r.Entries, "10 splits renamed and the enumerator")

	st, _, err := opstate.Load(ctx, "file://"+dst)
	require.NoError(t, err)
	got := map[int32]int64{}
	for _, p := range st.Positions() {
		assert.Equal(t, "renamed-topic", p.Topic)
		got[p.Partition] = p.Offset
	}
	require.Len(t, got, 10)
	for p, off := range got {
		switch p {
		case 6:
			assert.Equal(t, int64(123456789), off)
		case 8:
			assert.Equal(t, opstate.KafkaEarliestOffset, off)
		default:
			assert.Equal(t, int64(10), off, "partition %d", p)
		}
	}
	e := st.Operator("kafka-source-operator-uid").Coordinator.Enumerator.(*opstate.KafkaEnumerator)
	for _, p := range e.Partitions {
		assert.Equal(t, "renamed-topic", p.Topic)
		if p.Partition == 6 {
			assert.Equal(t, int64(123456789), p.Split.StartingOffset)
		}
	}
	// The state file was rewritten, the metadata records its new size.
	fi, err := os.Stat(filepath.Join(dst, "op-state-1"))
	require.NoError(t, err)
	assert.NotEqual(t, int64(len(before[filepath.Join(src, "op-state-1")])), fi.Size())
}

func TestSetOffsetsRefuses(t *testing.T) {
	ctx := context.Background()
	src := vfs.MustPath("file://" + kafkaFixture(t, 2))
	for name, c := range map[string]struct {
		ch   opstate.Changes
		want error
		msg  string
	}{
		"no such partition": {opstate.Changes{Offsets: []opstate.KafkaOffset{{Topic: "topic", Partition: 10, Offset: 1}}}, fs.ErrNotExist, "kafka topic partition 10"},
		"old topic name":    {opstate.Changes{MapTopics: map[string]string{"topic": "t2"}, Offsets: []opstate.KafkaOffset{{Topic: "topic", Partition: 1, Offset: 1}}}, fs.ErrNotExist, "kafka topic partition 1"},
		"bad offset":        {opstate.Changes{Offsets: []opstate.KafkaOffset{{Topic: "topic", Partition: 1, Offset: -7}}}, fs.ErrInvalid, "offset -7"},
		"no such split":     {opstate.Changes{Splits: []opstate.SplitPosition{{ID: "9", Position: 1}}}, fs.ErrNotExist, `split "9"`},
	} {
		dst := filepath.Join(t.TempDir(), "dst")
		_, err := opstate.SetOffsets(ctx, src, vfs.MustPath("file://"+dst), c.ch)
		assert.ErrorIs(t, err, c.want, name)
		assert.ErrorContains(t, err, c.msg, name)
		_, serr := os.Stat(dst)
		assert.ErrorIs(t, serr, fs.ErrNotExist, "%s: nothing written", name)
	}
}

func TestSetOffsetsMapTopicEveryEnumeratorVersion(t *testing.T) {
	ctx := context.Background()
	for v := 1; v <= 3; v++ {
		dst := filepath.Join(t.TempDir(), "dst")
		_, err := opstate.SetOffsets(ctx, vfs.MustPath("file://"+kafkaFixture(t, v)), vfs.MustPath("file://"+dst),
			opstate.Changes{MapTopics: map[string]string{"topic": "elsewhere"}})
		require.NoError(t, err, "enum%d", v)
		st, _, err := opstate.Load(ctx, "file://"+dst)
		require.NoError(t, err)
		ps := st.Positions()
		require.Len(t, ps, 10)
		for _, p := range ps {
			assert.Equal(t, "elsewhere", p.Topic)
			assert.Equal(t, int64(10), p.Offset)
		}
		c := st.Operator("cb16aa5adb311e8ac72482def19accbe").Coordinator
		require.NoError(t, c.DecodeErr)
		e := c.Enumerator.(*opstate.KafkaEnumerator)
		assert.Equal(t, int32(v), e.Version)
		require.Len(t, e.Partitions, 10)
		for _, p := range e.Partitions {
			assert.Equal(t, "elsewhere", p.Topic, "enum%d", v)
		}
	}
}

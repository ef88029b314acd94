package opstate_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/checkpointstorage/opstate"
	"github.com/vfskit/vfskit/internal/fixtures"
)

// kafkaFixture returns the savepoint directory of the shared Kafka fixture
// enum<v>-split0, skipping the test when the fixtures are absent.
func kafkaFixture(t *testing.T, v int) string {
	t.Helper()
	pattern := filepath.Join(fixtures.FlinkMetadataDir(t), "kafka-source-savepoint",
		"enum"+string(rune('0'+v))+"-split0", "savepoint-*")
	m, _ := filepath.Glob(pattern)
	if len(m) != 1 {
		t.Skipf("the shared fixture %s is absent", pattern)
	}
	abs, err := filepath.Abs(m[0])
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(abs, "_metadata"))
	require.NoError(t, err)
	return abs
}

func TestKafkaFixtures(t *testing.T) {
	for v := 1; v <= 3; v++ {
		dir := kafkaFixture(t, v)
		st, _, err := opstate.Load(context.Background(), dir)
		require.NoError(t, err, "enum%d", v)
		src := st.Operator("cb16aa5adb311e8ac72482def19accbe")
		require.NotNil(t, src)
		require.Len(t, src.States, 1)
		assert.Equal(t, opstate.SourceReaderStateName, src.States[0].Name)
		assert.Equal(t, "SPLIT_DISTRIBUTE", src.States[0].Mode.String())
		parts := map[int32]bool{}
		for _, sub := range src.States[0].Subtasks {
			for _, e := range sub.Entries {
				require.NotNil(t, e.Reader, "enum%d subtask %d: %v", v, sub.Index, e.ReaderErr)
				require.NoError(t, e.Reader.DecodeErr)
				k, ok := e.Reader.Split.(*opstate.KafkaSplit)
				require.True(t, ok)
				assert.Equal(t, "topic", k.Topic)
				assert.Equal(t, int64(10), k.StartingOffset)
				assert.Equal(t, opstate.KafkaNoStoppingOffset, k.StoppingOffset)
				parts[k.Partition] = true
			}
		}
		assert.Len(t, parts, 10, "enum%d", v)
		c := src.Coordinator
		require.NotNil(t, c)
		require.True(t, c.Source, "enum%d: %v", v, c.DecodeErr)
		assert.Equal(t, int32(v), c.EnumVersion)
		require.NoError(t, c.DecodeErr, "enum%d", v)
		ke, ok := c.Enumerator.(*opstate.KafkaEnumerator)
		require.True(t, ok)
		assert.Equal(t, int32(v), ke.Version)
		assert.Len(t, ke.Partitions, 10)
		for _, p := range ke.Partitions {
			assert.Equal(t, "topic", p.Topic)
			if v == 3 {
				require.NotNil(t, p.Split)
			}
		}
		again, err := opstate.EncodeCoordinator(c)
		require.NoError(t, err)
		assert.Equal(t, c.Bytes, again)
	}
}

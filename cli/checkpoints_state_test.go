package cli

import (
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/fixtures"
)

// kafkaSavepoint returns the URI of the Kafka source savepoint fixture
// enum<v>-split0.
func kafkaSavepoint(t *testing.T, v string) string {
	m, err := filepath.Glob(filepath.Join(fixtures.FlinkMetadataDir(t), "kafka-source-savepoint", "enum"+v+"-split0", "savepoint-*"))
	require.NoError(t, err)
	require.Len(t, m, 1)
	return "file://" + filepath.ToSlash(m[0])
}

func TestCheckpointsStateOnKafkaSavepoint(t *testing.T) {
	uri := kafkaSavepoint(t, "2")
	var doc stateJSON
	require.NoError(t, json.Unmarshal([]byte(ok(t, "checkpoints", "state", "--json", uri)), &doc))
	require.Len(t, doc.Operators, 2)
	src := doc.Operators[1]
	assert.Equal(t, "cb16aa5adb311e8ac72482def19accbe", src.ID)
	assert.Equal(t, "kafka-source-operator-uid", src.UID)
	require.Len(t, src.States, 1)
	assert.Equal(t, "SourceReaderState", src.States[0].Name)
	assert.Equal(t, "SPLIT_DISTRIBUTE", src.States[0].Mode)
	partitions := 0
	for _, sub := range src.States[0].Subtasks {
		for _, e := range sub.Entries {
			raw, err := base64.StdEncoding.DecodeString(e.Bytes)
			require.NoError(t, err)
			assert.Len(t, raw, 39)
			assert.Equal(t, "kafka", e.Decoded["kind"])
			assert.Equal(t, "topic", e.Decoded["topic"])
			assert.Equal(t, float64(10), e.Decoded["startingOffset"])
			assert.Nil(t, e.Decoded["stoppingOffset"])
			partitions++
		}
	}
	assert.Equal(t, 10, partitions)
	require.NotNil(t, src.Coordinator)
	assert.Equal(t, "kafka", src.Coordinator.Decoded["kind"])
	assert.Equal(t, float64(2), src.Coordinator.Decoded["serializerVersion"])
	assert.Len(t, src.Coordinator.Decoded["partitions"], 10)
	assert.Nil(t, doc.Operators[0].Coordinator)

	text := ok(t, "checkpoints", "state", "--operator", "kafka-source-operator-uid", uri)
	assert.Contains(t, text, "kafka enumerator (serializer version 2): 10 partitions of 1 topic, 10 assigned")
	assert.Equal(t, 10, strings.Count(text, ": offset 10 (serializer version 0)"), text)
	assert.NotContains(t, text, `name "Map"`)
	assert.Contains(t, fails(t, ExitUsage, "checkpoints", "state", "--operator", "nope", uri), `no operator with id or uid "nope"`)
}

func TestCheckpointsOffsetsOnKafkaSavepoints(t *testing.T) {
	for _, v := range []string{"1", "2", "3"} {
		uri := kafkaSavepoint(t, v)
		table := ok(t, "checkpoints", "offsets", uri)
		assert.Regexp(t, `(?m)^OPERATOR\s+SUBTASK\s+KIND\s+TOPIC\s+PARTITION\s+OFFSET\s+SPLIT\s+POSITION$`, table)
		for p := 0; p < 10; p++ {
			assert.Regexp(t, `(?m)^\S+\s+[0-2]\s+kafka\s+topic\s+`+string(rune('0'+p))+`\s+10\s+topic-`+string(rune('0'+p))+`\s+-$`, table, "enum%s", v)
		}
		var doc positionsJSON
		require.NoError(t, json.Unmarshal([]byte(ok(t, "checkpoints", "offsets", "--json", uri)), &doc))
		require.Len(t, doc.Positions, 10)
		for _, p := range doc.Positions {
			assert.Equal(t, "kafka", p.Kind)
			require.NotNil(t, p.Offset)
			assert.Equal(t, int64(10), *p.Offset)
		}
	}
}

func TestCheckpointsStateUnreadableFile(t *testing.T) {
	uri := "file://" + filepath.ToSlash(filepath.Join(fixtures.FlinkMetadataDir(t), "zhisheng-flink-learning-state"))
	r := vfskit(t, "checkpoints", "state", uri)
	assert.Equal(t, ExitFailure, r.code)
	assert.Contains(t, r.stdout, "subtask 0: unreadable: ")
	assert.Contains(t, r.stderr, "the state of 10 subtasks could not be read")
	assert.Contains(t, r.stdout, "state topic-partition-offset-states (UNION)")
}

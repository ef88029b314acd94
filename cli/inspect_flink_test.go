package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/internal/fixtures"
)

// TestCheckpointsInspectFlinkJSON: inspect --json of a checkpoint Flink wrote
// (the retained checkpoint of flink-connector-kafka's table test: version 4,
// checkpoint 2, parallelism 10, all state inline) prints the document of issue
// 11 with its field names.
func TestCheckpointsInspectFlinkJSON(t *testing.T) {
	root := fixtures.FlinkMetadataDir(t)
	dir := "file://" + filepath.ToSlash(filepath.Join(root, "kafka-table-state-offsets"))
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(ok(t, "checkpoints", "inspect", "--json", dir)), &doc))
	assert.Equal(t, dir+"/_metadata", doc["path"])
	assert.Equal(t, "flink", doc["format"])
	assert.EqualValues(t, 4, doc["version"])
	assert.EqualValues(t, 2, doc["checkpointId"])
	assert.Equal(t, "checkpoint", doc["type"])
	assert.Equal(t, "", doc["savepointFormat"])
	assert.EqualValues(t, 2*273+8*234+47, doc["inlineBytes"]) // the operator state of 10 subtasks and the coordinator's
	assert.Equal(t, []any{}, doc["files"])
	ops := doc["operators"].([]any)
	var source map[string]any
	for _, o := range ops {
		op := o.(map[string]any)
		for _, k := range []string{"id", "uid", "name", "parallelism", "maxParallelism", "subtaskStates", "coordinatorState", "operatorStateNames", "keyedSubtasks"} {
			require.Contains(t, op, k)
		}
		require.Len(t, op["id"], 32)
		if strings.HasPrefix(op["id"].(string), "a4122ae5") { // the uid kafka-source-uid
			source = op
		}
	}
	require.NotNil(t, source, "the Kafka source operator")
	assert.EqualValues(t, 10, source["parallelism"])
	assert.EqualValues(t, 128, source["maxParallelism"])
	assert.EqualValues(t, 10, source["subtaskStates"])
	assert.Equal(t, true, source["coordinatorState"])
	assert.Equal(t, []any{"SourceReaderState"}, source["operatorStateNames"])
	assert.EqualValues(t, 0, source["keyedSubtasks"])
	counts := doc["handleCounts"].(map[string]any)
	assert.NotZero(t, counts["OperatorStreamStateHandle"])
	assert.NotZero(t, counts["ByteStreamStateHandle"])

	// Files a checkpoint references: relative ones resolve against its
	// directory; presence is not checked (null).
	sp := "file://" + filepath.ToSlash(filepath.Join(root, "gimral-offset-translator", "test-resources", "FSSingleKafkaOperatorState"))
	require.NoError(t, json.Unmarshal([]byte(ok(t, "checkpoints", "inspect", "--json", sp)), &doc))
	files := doc["files"].([]any)
	require.Len(t, files, 3)
	f := files[0].(map[string]any)
	assert.Equal(t, "relative", f["reference"])
	assert.True(t, strings.HasPrefix(f["path"].(string), sp+"/"), f["path"])
	assert.Contains(t, f, "present")
	assert.Nil(t, f["present"])

	// The text form names the format; from version 5 on, uids and names.
	out := ok(t, "checkpoints", "inspect", dir)
	assert.Contains(t, out, "Checkpoint 2\n  format:    flink, version 4\n")
	v5 := "file://" + filepath.ToSlash(filepath.Join(root, "kafka-source-savepoint", "enum2-split0", "savepoint-de9fd4-35f289091a1b"))
	out = ok(t, "checkpoints", "inspect", v5)
	assert.Contains(t, out, "Savepoint ")
	assert.Contains(t, out, "format:    flink, version 5")
	assert.Contains(t, out, `uid "kafka-source-operator-uid" name "Source: TestDataSource"`)
	assert.Contains(t, out, "  type:      savepoint, ")
	assert.Contains(t, out, "  operator state: SourceReaderState\n  coordinator state: yes\n", "state names and coordinator state, as --json has them")
}

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckpointsSetOffsets(t *testing.T) {
	src := kafkaSavepoint(t, "3")
	dst := "file://" + filepath.ToSlash(filepath.Join(t.TempDir(), "moved"))
	out := ok(t, "checkpoints", "set-offsets", src, dst, "--map-topic", "topic=topic-v2",
		"--topic", "topic-v2", "--partition", "3", "--offset", "77", "--partition", "4", "--offset", "-2")
	assert.Contains(t, out, "11 entries rewritten (source splits and enumerator states), 0 state files; verified")
	table := ok(t, "checkpoints", "offsets", dst)
	assert.Regexp(t, `(?m)^\S+\s+\d\s+kafka\s+topic-v2\s+3\s+77\s+topic-v2-3\s+-$`, table)
	assert.Regexp(t, `(?m)^\S+\s+\d\s+kafka\s+topic-v2\s+4\s+-2 \(earliest\)\s+topic-v2-4\s+-$`, table)
	assert.Equal(t, 8, strings.Count(table, " 10 "), table)

	// offsets --json, edited, is a positions file.
	var doc positionsJSON
	require.NoError(t, json.Unmarshal([]byte(ok(t, "checkpoints", "offsets", "--json", dst)), &doc))
	for i := range doc.Positions {
		o := int64(1000 + *doc.Positions[i].Partition)
		doc.Positions[i].Offset = &o
	}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "positions.json")
	require.NoError(t, os.WriteFile(file, b, 0o644))
	again := "file://" + filepath.ToSlash(filepath.Join(t.TempDir(), "again"))
	ok(t, "checkpoints", "set-offsets", dst, again, "--from-file", file)
	require.NoError(t, json.Unmarshal([]byte(ok(t, "checkpoints", "offsets", "--json", again)), &doc))
	require.Len(t, doc.Positions, 10)
	for _, p := range doc.Positions {
		assert.Equal(t, int64(1000+*p.Partition), *p.Offset)
	}

	assert.Contains(t, fails(t, ExitUsage, "checkpoints", "set-offsets", src, dst+"-x", "--topic", "t", "--partition", "1"),
		"--topic, --partition and --offset go together")
	assert.Contains(t, fails(t, ExitUsage, "checkpoints", "set-offsets", src, dst+"-x"), "nothing to change")
	assert.Contains(t, fails(t, ExitUsage, "checkpoints", "set-offsets", src, dst+"-x", "--split", "nonsense"), `--split "nonsense": expected ID=POSITION`)
	r := vfskit(t, "checkpoints", "set-offsets", src, dst+"-x", "--topic", "nope", "--partition", "0", "--offset", "1")
	assert.Equal(t, ExitFailure, r.code)
	assert.Contains(t, r.stderr, "no split of the savepoint is kafka nope partition 0")
	_, err = os.Stat(strings.TrimPrefix(dst+"-x", "file://"))
	assert.True(t, os.IsNotExist(err), "nothing written")
}

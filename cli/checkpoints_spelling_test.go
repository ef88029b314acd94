package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
)

// TestAuditKeepsTheNameOfAnUnresolvableReference: another job's checkpoint
// names a file of job A's shared/ through hdfs://, which vfskit does not
// serve. audit --delete keeps A's file of that name, names the reference
// and suggests --map; with the mapping the reference is A's file, still
// kept, now as referenced.
func TestAuditKeepsTheNameOfAnUnresolvableReference(t *testing.T) {
	base := filepath.Join(t.TempDir(), "ckpt")
	jobA, jobB := checkpointstorage.NewJobID().String(), checkpointstorage.NewJobID().String()
	write := func(p string, data []byte) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
	encode := func(id int64, hs ...metadata.Handle) []byte {
		m := &metadata.Metadata{CheckpointID: id, Operators: []metadata.Operator{{UID: "op", Parallelism: 1, MaxParallelism: 1,
			Subtasks: []metadata.Subtask{{Handles: hs}}}}}
		data, err := metadata.Encode(m)
		require.NoError(t, err)
		return data
	}
	const name = "0a1b2c3d-4e5f-6789-abcd-ef0123456789"
	shared := filepath.Join(base, jobA, "shared", name)
	write(shared, []byte("sst"))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(shared, old, old))
	write(filepath.Join(base, jobA, "chk-1", "state"), []byte("xx"))
	write(filepath.Join(base, jobA, "chk-1", checkpointstorage.MetadataFileName),
		encode(1, &metadata.RelativeFileStateHandle{RelativePath: "state", Size: 2}))
	ref := "hdfs://namenode:8020/flink/checkpoints/" + jobA + "/shared/" + name
	write(filepath.Join(base, jobB, "chk-3", checkpointstorage.MetadataFileName),
		encode(3, &metadata.FileStateHandle{Path: ref, Size: 3, Shared: true}))

	jobDir := "file://" + filepath.ToSlash(filepath.Join(base, jobA))
	out := ok(t, "checkpoints", "audit", jobDir, "--delete")
	assert.Contains(t, out, ref)
	assert.Contains(t, out, "--map hdfs://namenode:8020/flink/checkpoints/"+jobA+"/shared=NEW")
	assert.Contains(t, out, "deleted 0 orphans")
	assert.FileExists(t, shared)

	mapping := "hdfs://namenode:8020/flink/checkpoints=file://" + filepath.ToSlash(base)
	out = ok(t, "checkpoints", "audit", jobDir, "--map", mapping, "--delete")
	assert.Contains(t, out, "referenced by")
	assert.FileExists(t, shared)
}

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/fixtures"
)

// TestCheckpointsOnFlinkJob runs list, verify, audit and relocate on a copy of
// an incremental RocksDB job Flink wrote, whose shared files are recorded as
// file:/state/checkpoint/<job>/shared/...
func TestCheckpointsOnFlinkJob(t *testing.T) {
	const job = "fe70b46528a700492a57752c1e19e1bb"
	src := filepath.Join(fixtures.FlinkMetadataDir(t), "gimral-offset-translator/state/checkpoint")
	base := filepath.Join(t.TempDir(), "checkpoint")
	require.NoError(t, os.CopyFS(base, os.DirFS(src)))
	uri := "file://" + filepath.ToSlash(base)
	jobDir := uri + "/" + job
	mapping := "file:/state/checkpoint=" + uri

	list := ok(t, "checkpoints", "list", uri)
	assert.Regexp(t, job+`\s+checkpoint\s+29\s+yes\s+flink\s+3\s`, list)
	assert.Equal(t, 3, strings.Count(list, " flink "), list)

	r := vfskit(t, "checkpoints", "verify", jobDir+"/chk-29")
	assert.Equal(t, ExitFailure, r.code)
	assert.Equal(t, 3, strings.Count(r.stdout, "missing: file:///state/checkpoint/"+job+"/shared/"), r.stdout)
	assert.Contains(t, r.stderr, "3 of 6 referenced files missing")
	assert.Contains(t, ok(t, "checkpoints", "verify", jobDir+"/chk-29", "--map", mapping), "all 6 referenced files present")
	assert.Contains(t, fails(t, ExitUsage, "checkpoints", "verify", jobDir+"/chk-29", "--map", "nonsense"), `invalid path mapping "nonsense"`)

	// A base directory verifies every checkpoint in it.
	all := ok(t, "checkpoints", "verify", uri, "--map", mapping)
	assert.Equal(t, 3, strings.Count(all, "OK: "), all)
	r = vfskit(t, "checkpoints", "verify", uri)
	assert.Equal(t, ExitFailure, r.code)
	assert.Equal(t, 9, strings.Count(r.stdout, "missing: "), r.stdout)
	assert.Contains(t, r.stderr, "3 of the checkpoints and savepoints in it do not verify: chk-6, chk-5, chk-29")

	orphan := filepath.Join(base, job, "shared", "leftover")
	require.NoError(t, os.WriteFile(orphan, []byte("0123456789"), 0o644))
	old := time.Now().Add(-24 * 365 * time.Hour)
	require.NoError(t, os.Chtimes(orphan, old, old))
	audit := ok(t, "checkpoints", "audit", jobDir, "--map", mapping)
	assert.Contains(t, audit, "1 completed checkpoint references 6 state files")
	assert.Contains(t, audit, "orphan "+jobDir+"/shared/leftover 10 B (deletable)")
	assert.Contains(t, audit, "dry run: 1 orphan, 10 B")
	var aj auditJSON
	require.NoError(t, json.Unmarshal([]byte(ok(t, "checkpoints", "audit", "--json", jobDir, "--map", mapping)), &aj))
	assert.Equal(t, auditJSON{JobDir: jobDir, Files: 8, Bytes: aj.Bytes, MetadataFiles: 1, MetadataBytes: aj.MetadataBytes, Completed: 1, Referenced: 6, ReferencedBytes: aj.ReferencedBytes,
		Missing: []auditFileJSON{}, Orphans: []auditOrphanJSON{{Path: jobDir + "/shared/leftover", Size: 10, Deletable: true}},
		OrphanBytes: 10, DeletableBytes: 10, DryRun: true, Deleted: []string{}}, aj)
	assert.Positive(t, aj.Bytes)
	assert.FileExists(t, orphan)
	assert.Contains(t, ok(t, "checkpoints", "audit", jobDir, "--map", mapping, "--delete", "--dry-run"), "dry run")
	assert.FileExists(t, orphan)
	r = vfskit(t, "checkpoints", "audit", jobDir, "--delete")
	require.Equal(t, ExitFailure, r.code, "unmapped, referenced files are missing: %s", r.stderr)
	unmapped := r.stdout
	assert.Contains(t, unmapped, "referenced but missing: file:///state/checkpoint/"+job+"/shared/")
	assert.Contains(t, unmapped, "deleted 0 orphans")
	r = vfskit(t, "checkpoints", "audit", "--json", jobDir)
	require.Equal(t, ExitFailure, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &aj))
	assert.NotEmpty(t, aj.Missing, "unmapped, the shared files are missing")
	assert.False(t, aj.Orphans[0].Deletable)
	assert.NotEmpty(t, aj.Orphans[0].Reason)
	assert.FileExists(t, orphan)
	assert.Contains(t, ok(t, "checkpoints", "audit", jobDir, "--map", mapping, "--delete"), "deleted 1 orphan, 10 B; 0 kept")
	assert.NoFileExists(t, orphan)

	dst := memRoot(t) + "/" + strconv.FormatInt(time.Now().UnixNano(), 36) + "/jobs/" + job // new on every run
	msg := fails(t, ExitFailure, "checkpoints", "relocate", jobDir, dst)
	assert.Contains(t, msg, "3 reference(s) to files outside it")
	out := ok(t, "checkpoints", "relocate", jobDir, dst, "--map", mapping)
	assert.Contains(t, out, "copied 7 files")
	assert.Contains(t, out, "3 references rewritten")
	assert.Contains(t, out, "OK: "+dst+"/chk-29 (flink version 3, checkpoint 29): all 6 referenced files present")
	assert.Contains(t, ok(t, "checkpoints", "verify", dst+"/chk-29"), "all 6 referenced files present")
	assert.Contains(t, ok(t, "checkpoints", "inspect", dst+"/chk-29"), dst+"/shared/")
}

// TestRelocateFlinkSavepointToS3 moves a native savepoint Flink wrote from
// file:// to S3 (SeaweedFS) with the command line: it verifies there, lists as
// a completed Flink savepoint of version 4 and inspects; a corrupted copy is
// listed as undecodable and fails verify.
func TestRelocateFlinkSavepointToS3(t *testing.T) {
	const sp = "apache-flink/flink-tests/src/test/resources/new-stateful-broadcast-udf-migration-itcase-flink1.17-rocksdb-savepoint-native"
	dir := filepath.Join(t.TempDir(), "savepoint-5b3c2e-8f7a1c0d9e2b")
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(fixtures.FlinkMetadataDir(t), sp))))
	root := s3Root(t)
	dst := root + "/savepoints/savepoint-5b3c2e-8f7a1c0d9e2b"
	out := ok(t, "checkpoints", "relocate", "file://"+filepath.ToSlash(dir), dst)
	assert.Contains(t, out, "copied 45 files")
	assert.Contains(t, out, "OK: "+dst+" (flink version 4, checkpoint 1): all 44 referenced files present")
	assert.Contains(t, ok(t, "checkpoints", "verify", dst), "all 44 referenced files present")
	assert.Regexp(t, `\nsavepoint\s+1\s+yes\s+flink\s+4\s+125\.2 KiB\s+45\s`, ok(t, "checkpoints", "list", root+"/savepoints"))
	assert.Contains(t, ok(t, "checkpoints", "inspect", dst), "savepoint")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "_metadata"), []byte("not metadata"), 0o644))
	assert.Regexp(t, `\nsavepoint\s+\?\s+undecodable\s+-\s+-\s`, ok(t, "checkpoints", "list", "file://"+filepath.ToSlash(filepath.Dir(dir))))
	assert.Contains(t, fails(t, ExitFailure, "checkpoints", "verify", "file://"+filepath.ToSlash(dir)), "corrupt checkpoint metadata")
}

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testJobID = "0123456789abcdef0123456789abcdef"

// demoArgs is a fast demo: 20,000 records, 3 subtasks, a checkpoint every 2,000
// records (9 checkpoints), a crash at 11,000.
func demoArgs(dir string, extra ...string) []string {
	return append([]string{"demo", "--records", "20000", "-k", "2000", "-p", "3", "--rate", "0",
		"--vocabulary", "5000", "--job-id", testJobID, "--checkpoint-dir", dir}, extra...)
}

// runDemoOnDisk runs the demo with fs storage into a temporary directory and
// returns the checkpoint base directory as a file:// URI and as a local path.
func runDemoOnDisk(t *testing.T) (uri, dir string) {
	dir = t.TempDir()
	uri = "file://" + dir
	ok(t, demoArgs(uri, "--storage", "fs", "--file-state-threshold", "1024", "--savepoint-dir", uri+"/savepoints")...)
	return uri, dir
}

func TestCheckpointsListInspectGC(t *testing.T) {
	uri, dir := runDemoOnDisk(t)
	jobDir := uri + "/" + testJobID
	// A failed leftover (older than the newest completed checkpoint) and a
	// checkpoint in progress (newer).
	require.NoError(t, os.MkdirAll(filepath.Join(dir, testJobID, "chk-0"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, testJobID, "chk-0", "state"), []byte("half"), 0o644))
	// A failed checkpoint's leftover is older than the newest completed one.
	past := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, testJobID, "chk-0", "state"), past, past))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, testJobID, "chk-100"), 0o755))

	out := ok(t, "checkpoints", "list", jobDir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 1+11, out)
	assert.Regexp(t, `^TYPE\s+ID\s+COMPLETED\s+FORMAT\s+VERSION\s+SIZE\s+FILES\s+MODIFIED\s+PATH$`, lines[0])
	assert.Regexp(t, `^checkpoint\s+0\s+no\s+-\s+-\s+4 B\s+1\s+\d{4}-`, lines[1])
	for i := 1; i <= 9; i++ {
		assert.Regexp(t, regexp.MustCompile(`^checkpoint\s+`+regexp.QuoteMeta(itoa(i))+`\s+yes\s+vfskit\s+1\s+\d+\.\d KiB\s+\d+\s+\d{4}-.* `+regexp.QuoteMeta(jobDir+"/chk-"+itoa(i))+`$`), lines[1+i])
	}
	assert.Regexp(t, `^checkpoint\s+100\s+no\s+-\s+-\s+0 B\s+0\s+`, lines[11])

	one := ok(t, "checkpoints", "list", jobDir+"/chk-4")
	assert.Regexp(t, `^TYPE .*\ncheckpoint\s+4\s+yes\s.*chk-4\n$`, one)

	base := ok(t, "checkpoints", "list", uri)
	assert.Contains(t, base, "JOB")
	assert.Equal(t, 12, strings.Count(base, testJobID+"  "), base)
	assert.Regexp(t, testJobID+`\s+savepoint\s+10\s+yes\s.*/savepoints/savepoint-012345-[0-9a-f]{12}\n$`, base, "savepoints one level down are listed last")
	sp := ok(t, "checkpoints", "list", uri+"/savepoints")
	assert.Regexp(t, `^TYPE .*\nsavepoint\s+10\s+yes\s.*savepoint-012345-[0-9a-f]{12}\n$`, sp)

	// inspect, text and JSON.
	text := ok(t, "checkpoints", "inspect", jobDir+"/chk-9")
	assert.Contains(t, text, "Checkpoint 9 of job "+testJobID)
	assert.Contains(t, text, "pointer:   "+jobDir+"/chk-9")
	assert.Contains(t, text, "metadata:  "+jobDir+"/chk-9/_metadata")
	assert.Contains(t, text, "operator word-source (parallelism 1, max parallelism 1)")
	assert.Contains(t, text, "operator word-count (parallelism 3, max parallelism 128)")
	assert.Contains(t, text, "  subtask 2\n")
	assert.Regexp(t, `    inline\s+8 B  in the metadata \(no file\)`, text)
	assert.Contains(t, text, "  type:      checkpoint\n")
	assert.Regexp(t, `\nfiles: \d+ files referenced, each listed once; \d+ B inline in the metadata\n`, text)
	assert.Regexp(t, `    relative\s+\d+\.\d KiB  \S+ → `+regexp.QuoteMeta(jobDir+"/chk-9/"), text)
	var view checkpointView
	require.NoError(t, json.Unmarshal([]byte(ok(t, "checkpoints", "inspect", "--json", jobDir+"/chk-9/_metadata")), &view))
	assert.Equal(t, int64(9), view.CheckpointID)
	assert.Equal(t, testJobID, view.JobID)
	assert.False(t, view.Savepoint)
	require.Len(t, view.Operators, 3)
	assert.Equal(t, "word-count", view.Operators[1].ID)
	assert.Equal(t, "word-sink", view.Operators[2].ID, "the file sink's tokens")
	require.Len(t, view.Operators[1].Subtasks, 3)
	h := view.Operators[1].Subtasks[0].Handles[0]
	assert.Contains(t, []string{"inline", "relative"}, h.Kind)
	assert.Positive(t, h.Size)
	var total int64
	for _, op := range view.Operators {
		for _, st := range op.Subtasks {
			for _, h := range st.Handles {
				total += h.Size
			}
		}
	}
	assert.Equal(t, view.StateSize, total)

	// gc: dry run first, then for real.
	dry := ok(t, "checkpoints", "gc", jobDir, "--retain", "2", "--dry-run")
	assert.Contains(t, dry, "would remove "+jobDir+"/chk-0 (failed leftover, 4 B)")
	assert.Contains(t, dry, "would remove "+jobDir+"/chk-7 (completed")
	assert.NotContains(t, dry, "chk-8 ")
	assert.NotContains(t, dry, "chk-100")
	assert.Contains(t, dry, "dry run: would remove 8, keep 3")
	assert.DirExists(t, filepath.Join(dir, testJobID, "chk-1"), "a dry run removes nothing")
	var gj gcJSON
	require.NoError(t, json.Unmarshal([]byte(ok(t, "checkpoints", "gc", "--json", jobDir, "--retain", "2", "--dry-run")), &gj))
	assert.True(t, gj.DryRun)
	assert.Equal(t, 2, gj.Retain)
	assert.Equal(t, 8, gj.Removed)
	assert.Equal(t, 3, gj.Kept)
	require.Len(t, gj.Jobs, 1)
	actions := map[string]gcCheckpointJSON{}
	for _, c := range gj.Jobs[0].Checkpoints {
		actions[strings.TrimPrefix(c.Path, jobDir+"/")] = c
	}
	assert.Equal(t, gcCheckpointJSON{Path: jobDir + "/chk-0", ID: 0, Size: 4, Action: "removed", Leftover: true}, actions["chk-0"])
	assert.Equal(t, "removed", actions["chk-7"].Action)
	assert.Equal(t, "kept", actions["chk-8"].Action)
	assert.Equal(t, "retained", actions["chk-8"].Reason)
	assert.Equal(t, "may be in progress", actions["chk-100"].Reason)
	assert.DirExists(t, filepath.Join(dir, testJobID, "chk-1"), "a dry run removes nothing")

	real := ok(t, "checkpoints", "gc", jobDir, "--retain", "2")
	assert.Contains(t, real, "removed "+jobDir+"/chk-1 (completed")
	assert.Contains(t, real, "removed 8, kept 3")
	out = ok(t, "checkpoints", "list", jobDir)
	lines = strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4, out)
	assert.Regexp(t, `^checkpoint\s+8\s+yes`, lines[1])
	assert.Regexp(t, `^checkpoint\s+9\s+yes`, lines[2])
	assert.Regexp(t, `^checkpoint\s+100\s+no`, lines[3])
	assert.Contains(t, ok(t, "checkpoints", "inspect", jobDir+"/chk-8"), "Checkpoint 8")

	// gc over the base directory cleans every job; nothing left to remove.
	assert.Contains(t, ok(t, "checkpoints", "gc", uri, "--retain", "1"), "removed "+jobDir+"/chk-8")
	assert.Contains(t, fails(t, ExitUsage, "checkpoints", "gc", jobDir, "--retain", "0"), "--retain must be at least 1, got 0")
	assert.Contains(t, fails(t, ExitUsage, "checkpoints", "gc", jobDir), `required flag(s) "retain" not set`)
}

func TestCheckpointsInspectCorruptedMetadata(t *testing.T) {
	uri, dir := runDemoOnDisk(t)
	chk := filepath.Join(dir, testJobID, "chk-9")
	meta := filepath.Join(chk, "_metadata")
	data, err := os.ReadFile(meta)
	require.NoError(t, err)

	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"flipped byte", flip(data, len(data)/2)},
		{"truncated", data[:len(data)-7]},
		{"not metadata", []byte("hello, world")},
		{"empty", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(meta, tc.data, 0o644))
			for _, args := range [][]string{
				{"checkpoints", "inspect", uri + "/" + testJobID + "/chk-9"},
				{"checkpoints", "inspect", "--json", uri + "/" + testJobID + "/chk-9/_metadata"},
			} {
				r := vfskit(t, args...)
				assert.Equal(t, ExitFailure, r.code)
				assert.Empty(t, r.stdout, "nothing half-decoded is printed")
				assert.Contains(t, r.stderr, "corrupt checkpoint metadata")
				assert.Contains(t, r.stderr, meta, "the error names the file")
			}
		})
	}
	// A savepoint with unreadable metadata is listed as undecodable, its id
	// unknown.
	sps, err := os.ReadDir(filepath.Join(dir, "savepoints"))
	require.NoError(t, err)
	require.Len(t, sps, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "savepoints", sps[0].Name(), "_metadata"), []byte("junk"), 0o644))
	assert.Regexp(t, `\nsavepoint\s+\?\s+undecodable\s+-\s+-\s`, ok(t, "checkpoints", "list", uri+"/savepoints"))

	msg := fails(t, ExitFailure, "checkpoints", "inspect", uri+"/"+testJobID+"/chk-77")
	assert.Contains(t, msg, "chk-77")
	require.NoError(t, os.Remove(meta))
	assert.Contains(t, fails(t, ExitFailure, "checkpoints", "inspect", uri+"/"+testJobID+"/chk-9"), "chk-9: it holds no _metadata: a checkpoint or savepoint in progress, failed or abandoned")
	assert.Contains(t, fails(t, ExitUsage, "checkpoints", "inspect", "nosuch://x/chk-1"), "nosuch:// is not a scheme here")
	assert.Regexp(t, `missing: (no such file or directory|file does not exist)`, fails(t, ExitFailure, "checkpoints", "list", uri+"/missing"))
}

func TestDemoCommand(t *testing.T) {
	r := vfskit(t, demoArgs(memRoot(t)+"/checkpoints")...)
	require.Equal(t, ExitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "job id               "+testJobID)
	assert.Contains(t, r.stdout, "checkpoints taken    9\n")
	assert.Contains(t, r.stdout, "crash                at record 11000")
	assert.Contains(t, r.stdout, "restore              checkpoint 5 (record 10000)")
	assert.Contains(t, r.stdout, "replayed             1000 records")
	assert.Contains(t, r.stdout, "OK: every count equals the failure-free run's (exactly-once)")
	assert.Regexp(t, `state handles\s+63 inline, 0 file, 0 relative`, r.stdout)
	assert.Regexp(t, `output\s+OK: \d+ part files in memory://\S+/output/0123456789abcdef0123456789abcdef hold every result exactly once \(20000 lines`, r.stdout)
	// The summary the issue asks for: bytes, handles, time per checkpoint, restore time.
	assert.Regexp(t, `\n  bytes written\s+\d+\.\d KiB: \d+\.\d KiB of state \(\d+\.\d KiB inline in the metadata, 0 B in state files\)\n`, r.stdout)
	assert.Regexp(t, `\n  time per checkpoint\s+[0-9.]+[µm]?s average, [0-9.]+[µm]?s max\n`, r.stdout)
	assert.Regexp(t, `\n  restore\s+checkpoint 5 \(record 10000\) in [0-9.]+[µm]?s, from memory://\S+/chk-5\n`, r.stdout)
	assert.Regexp(t, `\n\s+CHECKPOINT\s+RECORDS\s+STATE\s+WRITTEN\s+INLINE\s+FILE\s+RELATIVE\s+TIME\s*\n(\s+\d+\s+\d+0000?\s.*\n){9}\s+sp-10\s+20000\s`, r.stdout)
	assert.Regexp(t, `Savepoint: memory://\S+/checkpoints/savepoints/savepoint-012345-[0-9a-f]{12}\n`, r.stdout)
	assert.True(t, strings.HasSuffix(r.stdout, memoryHint), "a run on memory:// says how to keep and inspect checkpoints")
	assert.NotContains(t, r.stdout, "Inspect: ")
	// Progress on stderr, plain lines (not a terminal).
	assert.Contains(t, r.stderr, "CRASH at record 11000")
	assert.Contains(t, r.stderr, "restored checkpoint 5")
	assert.Equal(t, 9, strings.Count(r.stderr, "  checkpoint "), r.stderr)
	assert.NotContains(t, r.stderr, "\r", "no progress bar when not on a terminal")

	r = vfskit(t, demoArgs(memRoot(t)+"/broken", "--skip-restore")...)
	assert.Equal(t, ExitFailure, r.code)
	assert.Contains(t, r.stdout, "MISMATCH: word ")
	assert.Contains(t, r.stderr, "vfskit: demo: exactly-once check FAILED: word ")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--storage", "rocksdb"}, `storage must be "memory" or "fs", got "rocksdb"`},
		{[]string{"--crash-at", "20000"}, "crash offset must be between 1 and 19999"},
		{[]string{"-p", "0"}, "parallelism must be between 1 and 128, got 0"},
		{[]string{"--job-id", "xyz"}, "invalid --job-id"},
		{[]string{"--checkpoint-dir", "nosuch://b/x"}, "nosuch:// is not a scheme here"},
		{[]string{"--savepoint-dir", "s3:oops"}, `--savepoint-dir: bad URI "s3:oops"`},
		{[]string{"extra-arg"}, `unknown command "extra-arg"`},
	} {
		assert.Contains(t, fails(t, ExitUsage, append(demoArgs(memRoot(t)+"/x"), tc.args...)...), tc.want)
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x40
	return c
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestDemoProgressOnTerminal(t *testing.T) {
	var out, errOut strings.Builder
	code := Run(t.Context(), demoArgs(memRoot(t)+"/c", "--rate", "40000"), Stdio{Out: &out, Err: &errOut, Terminal: func() bool { return true }})
	require.Equal(t, ExitOK, code, errOut.String())
	assert.Contains(t, errOut.String(), "\r", "a progress bar is drawn")
	assert.Regexp(t, `records\s+\d+%`, errOut.String())
	assert.Contains(t, errOut.String(), "CRASH at record 11000", "events are printed above the bar")
	assert.Contains(t, out.String(), "OK: every count equals")
}

// TestDemoStateTooLarge runs the demo with memory storage and a state limit
// below the state's size: it fails (exit 1) with Flink's message, said once.
func TestDemoStateTooLarge(t *testing.T) {
	r := vfskit(t, demoArgs(memRoot(t)+"/c", "--max-state-size", "1000")...)
	assert.Equal(t, ExitFailure, r.code)
	assert.Contains(t, r.stderr, "vfskit: demo: subtask ")
	assert.Contains(t, r.stderr, "Size of the state is larger than the maximum permitted memory-backed state")
	assert.NotContains(t, r.stderr, "demo: demo:")
	assert.Empty(t, r.stdout, "no summary for a failed run")
}

//go:build unix

package cli

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
)

// TestCheckpointsListOverHostileDirectory: a job directory whose chk-N hold
// 40 vfskit headers each announcing 64 MiB, a FIFO as _metadata and a small
// Flink checkpoint followed by a sparse 1 GiB hole: list and gc --dry-run
// finish, report them as undecodable, and allocate less than 100 MB in all.
func TestCheckpointsListOverHostileDirectory(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "0123456789abcdef0123456789abcdef")
	put := func(chk string, data []byte) string {
		p := filepath.Join(job, chk, "_metadata")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	for i := range 40 {
		put(fmt.Sprintf("chk-%d", i+1), binary.BigEndian.AppendUint32([]byte("VFKC\x00\x01"), 64<<20-100))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(job, "chk-41"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(job, "chk-41", "_metadata"), 0o644))
	flink, err := metadata.Encode(&metadata.Metadata{Format: metadata.FormatFlink, Version: 3, CheckpointID: 42})
	require.NoError(t, err)
	require.NoError(t, os.Truncate(put("chk-42", flink), 1<<30))

	uri := "file://" + filepath.ToSlash(dir)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	list := ok(t, "checkpoints", "list", uri)
	gc := ok(t, "checkpoints", "gc", uri, "--retain", "1", "--dry-run")
	runtime.ReadMemStats(&after)
	n := after.TotalAlloc - before.TotalAlloc
	t.Logf("list and gc allocated %d bytes", n)
	assert.Less(t, n, uint64(100<<20))
	assert.Contains(t, list, "undecodable")
	assert.Contains(t, gc, "dry run: would remove 0")
}

// TestCheckpointsGCLeavesSpecialFiles: gc of a job whose old checkpoint holds
// a FIFO removes the checkpoint's other files, leaves the FIFO (never opened),
// names it as partly removed, and exits 1; --json names it in "special".
func TestCheckpointsGCLeavesSpecialFiles(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		dir := t.TempDir()
		job := filepath.Join(dir, testJobID)
		for id := int64(1); id <= 2; id++ {
			data, err := metadata.Encode(&metadata.Metadata{Format: metadata.FormatFlink, Version: 3, CheckpointID: id})
			require.NoError(t, err)
			chk := filepath.Join(job, fmt.Sprintf("chk-%d", id))
			require.NoError(t, os.MkdirAll(chk, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(chk, "_metadata"), data, 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(chk, "state"), []byte("state"), 0o644))
		}
		fifo := filepath.Join(job, "chk-1", "pipe")
		require.NoError(t, syscall.Mkfifo(fifo, 0o644))
		jobURI := "file://" + filepath.ToSlash(job)
		args := []string{"checkpoints", "gc", jobURI, "--retain", "1"}
		if asJSON {
			args = append(args, "--json")
		}

		r := vfskit(t, args...)
		assert.Equal(t, ExitFailure, r.code, "stdout %q stderr %q", r.stdout, r.stderr)
		assert.Contains(t, r.stderr, "1 checkpoint partly removed")
		if asJSON {
			var doc gcJSON
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc))
			require.Len(t, doc.Jobs, 1)
			require.NotEmpty(t, doc.Jobs[0].Checkpoints)
			chk1 := doc.Jobs[0].Checkpoints[0]
			assert.Equal(t, "removed", chk1.Action)
			assert.Equal(t, []string{jobURI + "/chk-1/pipe"}, chk1.Special)
		} else {
			assert.Contains(t, r.stdout, "partly removed "+jobURI+"/chk-1")
			assert.Contains(t, r.stdout, "not removed, not a regular file (never opened): "+jobURI+"/chk-1/pipe")
		}
		st, err := os.Lstat(fifo)
		require.NoError(t, err)
		assert.NotZero(t, st.Mode()&os.ModeNamedPipe, "the FIFO stays")
		assert.NoFileExists(t, filepath.Join(job, "chk-1", "state"))
		assert.NoFileExists(t, filepath.Join(job, "chk-1", "_metadata"))
		assert.FileExists(t, filepath.Join(job, "chk-2", "_metadata"))
	}
}

//go:build unix

package cli

import (
	"encoding/binary"
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

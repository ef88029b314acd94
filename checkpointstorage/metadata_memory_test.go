package checkpointstorage_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
)

// TestLoadCheckpointMemory: loading a large _metadata (12 MB, 200,000
// subtasks each with a relative state file and inline state, as the storage
// writes them) costs a small multiple of the file's size, not the 443 MB
// (37×) the first decoder took.
func TestLoadCheckpointMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 12 MB file")
	}
	dir := t.TempDir()
	chk := filepath.Join(dir, "chk-1")
	require.NoError(t, os.Mkdir(chk, 0o755))
	op := metadata.Operator{UID: "op", Parallelism: 200000, MaxParallelism: 200000}
	for i := range 200000 {
		op.Subtasks = append(op.Subtasks, metadata.Subtask{Index: i, Handles: []metadata.Handle{
			&metadata.RelativeFileStateHandle{RelativePath: fmt.Sprintf("%036d", i), Size: 1 << 20},
			&metadata.ByteStreamStateHandle{Name: fmt.Sprintf("%036d", i), Data: make([]byte, 8)},
		}})
	}
	b, err := (&metadata.Metadata{CheckpointID: 1, Operators: []metadata.Operator{op}}).MarshalBinary()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(chk, "_metadata"), b, 0o644))
	op.Subtasks = nil
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, _, err := cs.LoadCheckpoint(t.Context(), "file://"+filepath.ToSlash(chk))
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Len(t, m.Operators[0].Subtasks, 200000)
	n := after.TotalAlloc - before.TotalAlloc
	t.Logf("loading %d bytes of metadata allocated %d bytes (%.1f×)", len(b), n, float64(n)/float64(len(b)))
	require.Less(t, n, 8*uint64(len(b)), "%d bytes allocated for %d bytes of metadata", n, len(b))
}

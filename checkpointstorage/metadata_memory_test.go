package checkpointstorage_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/internal/bigmeta"
)

// TestLoadCheckpointMemory: loading a large _metadata (12 MB, 200,000
// subtasks each with a relative state file and inline state, as the storage
// writes them) costs a small multiple of the file's size, not the 443 MB
// (37×) the first decoder took.
func TestLoadCheckpointMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 12 MB file")
	}
	chk, size := bigmeta.Write(t, 200000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, _, err := cs.LoadCheckpoint(t.Context(), "file://"+filepath.ToSlash(chk))
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Len(t, m.Operators[0].Subtasks, 200000)
	n := after.TotalAlloc - before.TotalAlloc
	t.Logf("loading %d bytes of metadata allocated %d bytes (%.1f×)", size, n, float64(n)/float64(size))
	require.Less(t, n, 8*uint64(size), "%d bytes allocated for %d bytes of metadata", n, size)
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/internal/bigmeta"
	"github.com/vfskit/vfskit/internal/fixtures"
	"github.com/vfskit/vfskit/vfs"
)

// heapSampler is an output that measures the live heap (after a collection)
// every time another quarter MiB has been written to it, and keeps the
// largest measure: what a command holds while it prints.
type heapSampler struct {
	written, next int
	peak          uint64
}

func (s *heapSampler) Write(p []byte) (int, error) {
	if s.written >= s.next {
		s.sample()
		s.next = s.written + 256<<10
	}
	s.written += len(p)
	return len(p), nil
}

func (s *heapSampler) sample() {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	s.peak = max(s.peak, ms.HeapAlloc)
}

// inspectHeap runs "checkpoints inspect" with args and returns the most live
// heap it held above what was live before, and how many bytes it printed.
func inspectHeap(t *testing.T, args ...string) (peak uint64, printed int) {
	t.Helper()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := &heapSampler{}
	var errOut bytes.Buffer
	code := Run(context.Background(), append([]string{"checkpoints", "inspect"}, args...), Stdio{Out: s, Err: &errOut, Terminal: func() bool { return false }})
	require.Equal(t, ExitOK, code, errOut.String())
	if s.peak < before.HeapAlloc {
		return 0, s.written
	}
	return s.peak - before.HeapAlloc, s.written
}

// TestCheckpointsInspectMemory: inspecting a large _metadata (40,000 subtasks,
// each with a state file and inline state, as the storage writes them) holds
// a small multiple of the file's size while it prints, in JSON and in text,
// not the whole document (7.7 and 2.9 times the file's size here): the
// decoded metadata (about 4.5 times) and one subtask at a time. Building the
// whole document first held 16.8 (JSON) and 6.8 (text) times the file.
func TestCheckpointsInspectMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 4 MB file")
	}
	chk, size := bigmeta.Write(t, 40000)
	uri := "file://" + filepath.ToSlash(chk)
	for _, c := range []struct {
		args  []string
		bound float64
	}{{[]string{"--json", uri}, 8}, {[]string{uri}, 6}} {
		args := c.args
		peak, printed := inspectHeap(t, args...)
		ratio := float64(peak) / float64(size)
		t.Logf("inspect %q of %d bytes printed %d bytes holding at most %d bytes (%.1f× the file)", args[0], size, printed, peak, ratio)
		assert.Greater(t, printed, 2*int(size), "the whole document was printed")
		assert.Less(t, ratio, c.bound, "inspect %q holds %d bytes for a %d-byte _metadata", args[0], peak, size)
	}
}

// TestCheckpointsInspectFixtures: for every Flink _metadata fixture, the JSON
// that inspect writes piece by piece is byte for byte what encoding the whole
// document at once gives (read back into a checkpointView, encoded with
// json.Encoder, redacted as one string), and for the largest fixture the heap
// it holds while printing is a small multiple of the file's size.
func TestCheckpointsInspectFixtures(t *testing.T) {
	root, files := fixtures.FlinkMetadataFiles(t)
	largest, largestSize := "", int64(0)
	for _, f := range files {
		dir := "file://" + filepath.ToSlash(filepath.Join(root, filepath.Dir(f)))
		out := ok(t, "checkpoints", "inspect", "--json", dir)
		var view checkpointView
		require.NoError(t, json.Unmarshal([]byte(out), &view), f)
		var whole bytes.Buffer
		enc := json.NewEncoder(&whole)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(view))
		require.Equal(t, vfs.Redact(whole.String()), out, "%s: the streamed document differs from the whole one", f)
		if st, err := os.Stat(filepath.Join(root, f)); err == nil && st.Size() > largestSize {
			largest, largestSize = dir, st.Size()
		}
	}
	for _, args := range [][]string{{"--json", largest}, {largest}} {
		peak, printed := inspectHeap(t, args...)
		t.Logf("inspect %q of the largest fixture (%d bytes) printed %d bytes holding at most %d bytes (%.1f× the file)",
			args, largestSize, printed, peak, float64(peak)/float64(largestSize))
		assert.Less(t, peak, uint64(16*largestSize), "inspect %q holds %d bytes for a %d-byte _metadata", args, peak, largestSize)
	}
}

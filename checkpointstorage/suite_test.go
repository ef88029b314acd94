package checkpointstorage_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// backend is one storage the table-driven suite runs over: base returns a fresh,
// empty checkpoints base directory that the test owns.
type backend struct {
	name string
	base func(t *testing.T) vfs.Path
	// objectStore is true when directories are implicit.
	objectStore bool
}

// memoryBackend gives each test its own memory:// authority.
var memoryBackend = backend{name: "memory", base: func(t *testing.T) vfs.Path {
	return vfs.MustPath(memfs.New().URI().JoinPath("checkpoints").String())
}}

// testBackends lists every backend the suite runs over. Other files append to it
// in init functions (file://, s3:// servers).
var testBackends = []backend{memoryBackend}

// forEachBackend runs fn as a subtest for each backend.
func forEachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	t.Helper()
	for _, b := range testBackends {
		t.Run(b.name, func(t *testing.T) { fn(t, b) })
	}
}

func mustPath(t *testing.T, s string) vfs.Path {
	t.Helper()
	p, err := vfs.NewPath(s)
	require.NoError(t, err)
	return p
}

func fsOf(t *testing.T, p vfs.Path) vfs.FileSystem {
	t.Helper()
	fsys, err := p.FileSystem(t.Context())
	require.NoError(t, err)
	return fsys
}

// writeState writes data into a new stream of f, in chunks of chunk bytes (all
// at once when chunk ≤ 0), and returns the handle.
func writeState(t *testing.T, f cs.CheckpointStreamFactory, scope cs.StateScope, data []byte, chunk int) cs.StreamStateHandle {
	t.Helper()
	out, err := f.CreateCheckpointStateOutputStream(t.Context(), scope)
	require.NoError(t, err)
	writeChunks(t, out, data, chunk)
	require.Equal(t, int64(len(data)), out.Pos())
	h, err := out.CloseAndGetHandle(t.Context())
	require.NoError(t, err)
	return h
}

func writeChunks(t *testing.T, w io.Writer, data []byte, chunk int) {
	t.Helper()
	if chunk <= 0 {
		chunk = len(data)
	}
	for len(data) > 0 {
		n := min(chunk, len(data))
		m, err := w.Write(data[:n])
		require.NoError(t, err)
		require.Equal(t, n, m)
		data = data[n:]
	}
}

func readHandle(t *testing.T, h metadata.Handle) []byte {
	t.Helper()
	sh, ok := h.(cs.StreamStateHandle)
	require.True(t, ok, "%T is not a live state handle", h)
	in, err := sh.OpenInputStream(t.Context())
	require.NoError(t, err)
	defer in.Close()
	b, err := io.ReadAll(in)
	require.NoError(t, err)
	return b
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

// fileNames lists the names of the regular files directly in dir (none when dir
// does not exist).
func fileNames(t *testing.T, dir vfs.Path) []string {
	t.Helper()
	fsys := fsOf(t, dir)
	entries, err := fsys.List(t.Context(), dir)
	if err != nil {
		require.ErrorIs(t, err, errNotExist)
		return nil
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir {
			names = append(names, e.Name())
		}
	}
	return names
}

func exists(t *testing.T, p vfs.Path) bool {
	t.Helper()
	ok, err := vfs.Exists(t.Context(), fsOf(t, p), p)
	require.NoError(t, err)
	return ok
}

// sampleMetadata builds metadata for checkpoint id over the given handles, one
// subtask each.
func sampleMetadata(job cs.JobID, id int64, handles ...cs.StreamStateHandle) *cs.CheckpointMetadata {
	m := &cs.CheckpointMetadata{JobID: job, CheckpointID: id, Timestamp: fixedTime}
	op := cs.OperatorState{UID: "map-1", Parallelism: len(handles), MaxParallelism: 128}
	for i, h := range handles {
		op.Subtasks = append(op.Subtasks, cs.SubtaskState{Index: i, Handles: []metadata.Handle{h}})
	}
	m.Operators = []cs.OperatorState{op}
	return m
}

// checkRestored asserts that loaded holds the same states as want, in order.
func checkRestored(t *testing.T, loaded *cs.CheckpointMetadata, want [][]byte) {
	t.Helper()
	hs := loaded.Handles()
	require.Len(t, hs, len(want))
	for i, h := range hs {
		require.True(t, bytes.Equal(want[i], readHandle(t, h)), "state %d (%v) differs", i, h)
		require.Equal(t, int64(len(want[i])), h.StateSize())
	}
}

var (
	fixedTime   = time.Date(2026, 12, 2, 17, 0, 0, 123456789, time.UTC)
	errNotExist = fs.ErrNotExist
)

var _ = context.Background

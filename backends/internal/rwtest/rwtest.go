// Package rwtest holds what the object-store backends' recoverable-writer
// tests share beyond the conformance suite's Recoverable group: streams
// written through faults (WriteWithRecovery), the check that nothing corrupt
// was published, and convergence once the faults stop.
package rwtest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// Data returns n bytes that differ with seed and position.
func Data(seed, n int) []byte {
	b := make([]byte, n)
	x := uint32(seed*2654435761 + 1)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// RequireContent requires that p hold exactly want.
func RequireContent(t *testing.T, fsys vfs.FileSystem, p vfs.Path, want []byte) {
	t.Helper()
	requireContent(t, fsys, p, want)
}

func requireContent(t *testing.T, fsys vfs.FileSystem, p vfs.Path, want []byte) {
	t.Helper()
	got, err := vfs.ReadFile(t.Context(), fsys, p)
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "%s holds %d bytes, want %d (first difference at %d)", p, len(got), len(want), firstDiff(got, want))
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// RequireOnly requires that dir list exactly names (no temporary object).
func RequireOnly(t *testing.T, fsys vfs.FileSystem, dir vfs.Path, names ...string) {
	t.Helper()
	requireOnly(t, fsys, dir, names...)
}

func requireOnly(t *testing.T, fsys vfs.FileSystem, dir vfs.Path, names ...string) {
	t.Helper()
	entries, err := fsys.List(t.Context(), dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Path.Name())
	}
	require.Equal(t, names, got, "entries of %s (%s)", dir, strings.Join(got, ", "))
}

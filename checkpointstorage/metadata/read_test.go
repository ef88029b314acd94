package metadata_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	m "github.com/vfskit/vfskit/checkpointstorage/metadata"
)

// countingFile counts the bytes read from a file (and stays an io.Seeker).
type countingFile struct {
	*os.File
	n int64
}

func (c *countingFile) Read(p []byte) (int, error) {
	n, err := c.File.Read(p)
	c.n += int64(n)
	return n, err
}

// TestReadVfskitHeaderChecksItsLength: a 10-byte vfskit header announcing 64
// MiB or 2 GiB fails without allocating for what it announces, from a file
// (whose size is known) and from a stream (whose size is not).
func TestReadVfskitHeaderChecksItsLength(t *testing.T) {
	for _, want := range []uint32{64<<20 - 100, 1<<31 - 1} {
		head := binary.BigEndian.AppendUint32([]byte("VFKC\x00\x01"), want)
		for name, r := range map[string]func() io.Reader{
			"seeker": func() io.Reader { return bytes.NewReader(head) },
			"stream": func() io.Reader { return io.MultiReader(bytes.NewReader(head)) },
		} {
			var err error
			n := allocDuring(func() { _, err = m.Read(r()) })
			require.ErrorIs(t, err, m.ErrCorrupt, name)
			require.Less(t, n, uint64(1<<20), "%s: %d bytes allocated for a 10-byte file announcing %d", name, n, want)
		}
	}
}

// TestReadSparseFlinkFile: a small Flink checkpoint followed by a sparse hole
// up to 1 GiB is refused (bytes after the end of the metadata) after reading
// a few MiB at most, with memory in proportion; the same checkpoint without
// the hole decodes. The file is made in a temporary directory.
func TestReadSparseFlinkFile(t *testing.T) {
	small, err := m.Encode(&m.Metadata{Format: m.FormatFlink, Version: 3, CheckpointID: 7,
		Operators: []m.Operator{{ID: [16]byte{1}, Parallelism: 1, MaxParallelism: 128, Subtasks: []m.Subtask{{}}}}})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "_metadata")
	require.NoError(t, os.WriteFile(path, small, 0o644))
	read := func() (*m.Metadata, int64, uint64, error) {
		f, err := os.Open(path)
		require.NoError(t, err)
		defer f.Close()
		c := &countingFile{File: f}
		var md *m.Metadata
		n := allocDuring(func() { md, err = m.Read(c) })
		return md, c.n, n, err
	}
	md, _, _, err := read()
	require.NoError(t, err)
	require.Equal(t, int64(7), md.CheckpointID)

	require.NoError(t, os.Truncate(path, 1<<30))
	_, got, alloc, err := read()
	require.ErrorIs(t, err, m.ErrCorrupt)
	require.Contains(t, err.Error(), "after the end of the metadata")
	require.LessOrEqual(t, got, int64(4<<20), "bytes read of the 1 GiB file")
	require.LessOrEqual(t, alloc, 4*uint64(got)+1<<20, "allocated for %d bytes read", got)

	// A stream (size unknown) is read in steps too.
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	c := &countingFile{File: f}
	_, err = m.Read(io.MultiReader(c))
	require.ErrorIs(t, err, m.ErrCorrupt)
	require.LessOrEqual(t, c.n, int64(4<<20))
}

package blobfs_test

import (
	"bytes"
	"io"
	"io/fs"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/vfs"
)

// Ranges opened at once on a fresh stream (no response pinned its version
// yet) each read their bytes of the one version.
func TestOpenRangeConcurrently(t *testing.T) {
	ctx := t.Context()
	fsys, b := newMem(t, blobfs.Options{})
	data := make([]byte, 100_003)
	for i := range data {
		data[i] = byte(i * 13)
	}
	require.NoError(t, b.WriteAll(ctx, "f", data, nil))
	in, err := fsys.Open(ctx, vfs.MustPath("/f"))
	require.NoError(t, err)
	defer in.Close()
	rr, ok := in.(vfs.RangeReader)
	require.True(t, ok)
	require.True(t, rr.ReadsRanges())
	const piece = 10_000
	got := make([][]byte, len(data)/piece+1)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			r, err := rr.OpenRange(int64(i*piece), piece)
			if !assert.NoError(t, err) {
				return
			}
			defer r.Close()
			got[i], err = io.ReadAll(r)
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.True(t, bytes.Equal(data, bytes.Join(got, nil)), "the ranges hold other bytes")

	r, err := rr.OpenRange(int64(len(data)), 10)
	require.NoError(t, err)
	rest, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Empty(t, rest, "a range past the end is empty")
	_, err = rr.OpenRange(-1, 10)
	assert.ErrorIs(t, err, fs.ErrInvalid)
	require.NoError(t, in.Close())
	_, err = rr.OpenRange(0, 10)
	assert.ErrorIs(t, err, fs.ErrClosed)
}

package local_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// A stream of file:// is written at offsets from several goroutines at once
// (vfs.RangeWriter), out of order, and Close publishes the whole file; until
// then only the temporary file exists.
func TestWriteAtConcurrently(t *testing.T) {
	dir := t.TempDir()
	p := vfs.MustPath(filepath.Join(dir, "f"))
	out, err := local.New().Create(t.Context(), p, vfs.NoOverwrite)
	require.NoError(t, err)
	rw, ok := out.(vfs.RangeWriter)
	require.True(t, ok)
	require.True(t, rw.WritesRanges())
	const piece, pieces = 3 << 20, 6 // past writebackEvery, so writeback runs too
	data := make([]byte, piece*pieces+7)
	for i := range data {
		data[i] = byte(i*31 + i>>12)
	}
	var wg sync.WaitGroup
	for i := pieces; i >= 0; i-- {
		wg.Go(func() {
			end := min(len(data), (i+1)*piece)
			n, err := rw.WriteAt(data[i*piece:end], int64(i*piece))
			assert.NoError(t, err)
			assert.Equal(t, end-i*piece, n)
		})
	}
	wg.Wait()
	assert.Equal(t, int64(len(data)), out.Pos())
	_, err = os.Stat(filepath.Join(dir, "f"))
	require.ErrorIs(t, err, fs.ErrNotExist, "visible before Close")
	require.NoError(t, out.Close())
	got, err := os.ReadFile(filepath.Join(dir, "f"))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, got), "the file holds other bytes")
	assert.Equal(t, []string{"f"}, osNames(t, dir))

	_, err = rw.WriteAt([]byte("x"), 0)
	assert.ErrorIs(t, err, fs.ErrClosed, "WriteAt after Close")
}

// A negative offset is refused; a stream that is not writing a file on disk
// (memory://) writes no ranges.
func TestWriteAtRefusals(t *testing.T) {
	dir := t.TempDir()
	out, err := local.New().Create(t.Context(), vfs.MustPath(filepath.Join(dir, "f")), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.(vfs.RangeWriter).WriteAt([]byte("x"), -1)
	assert.ErrorIs(t, err, fs.ErrInvalid)
	require.NoError(t, out.Close())

	mem, root := memfs.NewTest(t)
	mout, err := mem.Create(t.Context(), root.Join("f"), vfs.NoOverwrite)
	require.NoError(t, err)
	defer mout.Close()
	mrw := mout.(vfs.RangeWriter)
	assert.False(t, mrw.WritesRanges())
	_, err = mrw.WriteAt([]byte("x"), 0)
	assert.True(t, errors.Is(err, errors.ErrUnsupported), "%v", err)
}

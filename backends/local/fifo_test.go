//go:build unix

package local_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// TestFIFOStreams reads a named pipe (what /dev/stdin is under a shell pipe):
// Read streams it whole, while ReadAt and Seek fail with errors.ErrUnsupported
// instead of "illegal seek", and vfs.Copy publishes every byte.
func TestFIFOStreams(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	data := bytes.Repeat([]byte("0123456789abcdef"), 40_000) // 640 KB: many pipe buffers
	write := func() <-chan error {
		done := make(chan error, 1)
		go func() {
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				_, err = w.Write(data)
				err = errors.Join(err, w.Close())
			}
			done <- err
		}()
		return done
	}
	p := vfs.MustPath("file://" + fifo)
	fsys, err := p.FileSystem(ctx)
	require.NoError(t, err)

	done := write()
	in, err := fsys.Open(ctx, p)
	require.NoError(t, err)
	_, err = in.ReadAt(make([]byte, 4), 0)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	assert.Contains(t, err.Error(), fifo)
	_, err = in.Seek(0, io.SeekStart)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	got, err := io.ReadAll(in)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, got), "read %d bytes of %d", len(got), len(data))
	pos, err := in.Seek(0, io.SeekCurrent)
	require.NoError(t, err)
	assert.Equal(t, int64(len(data)), pos)
	require.NoError(t, in.Close())
	require.NoError(t, <-done)

	done = write()
	dst := vfs.MustPath("file://" + filepath.Join(dir, "copy"))
	n, err := vfs.Copy(ctx, fsys, dst, fsys, p)
	require.NoError(t, err)
	require.NoError(t, <-done)
	assert.Equal(t, int64(len(data)), n)
	got, err = os.ReadFile(filepath.Join(dir, "copy"))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, got))
}

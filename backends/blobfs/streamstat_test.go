package blobfs_test

import (
	"bytes"
	"io"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/vfs"
)

// TestStreamStat: a stream tells the size and time of the version it reads,
// also after the object was replaced (Stat describes the new one), HEADing
// only when nothing was read yet; a missing object fails with
// fs.ErrNotExist, a closed stream with fs.ErrClosed.
func TestStreamStat(t *testing.T) {
	ctx := t.Context()
	fsys, b := newMem(t, blobfs.Options{})
	v1 := bytes.Repeat([]byte{'1'}, 1000)
	require.NoError(t, b.WriteAll(ctx, "f", v1, nil))
	want, err := fsys.Stat(ctx, vfs.MustPath("/f"))
	require.NoError(t, err)

	for _, read := range []bool{true, false} {
		in, err := fsys.Open(ctx, vfs.MustPath("/f"))
		require.NoError(t, err)
		if read {
			_, err = io.ReadFull(in, make([]byte, 10))
			require.NoError(t, err)
		}
		st, err := vfs.StatStream(ctx, fsys, vfs.MustPath("/f"), in)
		require.NoError(t, err)
		require.Equal(t, want.Size, st.Size)
		require.True(t, want.ModTime.Equal(st.ModTime), "%v, want %v", st.ModTime, want.ModTime)
		require.Equal(t, want.Path, st.Path)

		require.NoError(t, b.WriteAll(ctx, "f", []byte("22"), nil))
		st, err = in.(vfs.StreamStater).Stat()
		require.NoError(t, err)
		require.Equal(t, int64(len(v1)), st.Size, "the version the stream reads (read=%t)", read)
		require.NoError(t, in.Close())
		_, err = in.(vfs.StreamStater).Stat()
		require.ErrorIs(t, err, fs.ErrClosed)
		require.NoError(t, b.WriteAll(ctx, "f", v1, nil))
		want, err = fsys.Stat(ctx, vfs.MustPath("/f"))
		require.NoError(t, err)
	}

	in, err := fsys.Open(ctx, vfs.MustPath("/missing"))
	require.NoError(t, err)
	defer in.Close()
	_, err = in.(vfs.StreamStater).Stat()
	require.ErrorIs(t, err, fs.ErrNotExist)
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "mem://test/missing", pe.Path)
}

package buckettest

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// WrittenVersion writes size bytes to the new file p through one stream and
// requires that the version the stream says it published
// (vfs.WrittenVersioner) carries the store's ID and is the version a stream
// reading p back tells: for a size above the part size, the answer to the
// request that commits the parts.
func WrittenVersion(t *testing.T, fsys vfs.FileSystem, p vfs.Path, size int) {
	t.Helper()
	ctx := t.Context()
	out, err := fsys.Create(ctx, p, vfs.NoOverwrite)
	require.NoError(t, err)
	wv, ok := out.(vfs.WrittenVersioner)
	require.True(t, ok, "%T tells no version it published", out)
	wv.KeepVersion()
	_, err = out.Write(bytes.Repeat([]byte("v"), size))
	require.NoError(t, err)
	require.NoError(t, out.Close())
	written, err := wv.Version()
	require.NoError(t, err)
	require.NotEmpty(t, written.ID, "the store's ID of the version written")
	in, err := fsys.Open(ctx, p)
	require.NoError(t, err)
	defer in.Close()
	_, err = io.Copy(io.Discard, in)
	require.NoError(t, err)
	read, err := vfs.StreamVersion(ctx, fsys, p, in)
	require.NoError(t, err)
	require.Equal(t, read.ID, written.ID)
	require.True(t, written.Matches(read), "written %s, read %s", written, read)
}

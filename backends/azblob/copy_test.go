package azblob_test

import (
	"bytes"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob/azureblob"

	"github.com/vfskit/vfskit/backends/blobfs"

	"github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/vfs"
)

// TestCopiesStayInTheAccount: Rename and CopyFile are Azure's Copy Blob (the
// new blob says so in its copy status), carry the write id blobfs reads back
// after a lost answer, and refuse an existing destination, leaving it as it
// was.
func TestCopiesStayInTheAccount(t *testing.T) {
	srv := azuritetest.Shared(t)
	ctx := t.Context()
	container, err := srv.NewContainer(ctx)
	require.NoError(t, err)
	fsys, err := azblob.New(ctx, container, azblob.Options{ConnectionString: srv.ConnectionString})
	require.NoError(t, err)
	dir := vfs.MustPath("azblob://" + container + "/copies")
	src, renamed, copied, taken := dir.Join("src"), dir.Join("renamed"), dir.Join("copied"), dir.Join("taken")
	data := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	require.NoError(t, vfs.WriteFile(ctx, fsys, src, data, vfs.NoOverwrite))
	require.NoError(t, vfs.WriteFile(ctx, fsys, taken, []byte("kept"), vfs.NoOverwrite))

	require.NoError(t, fsys.Rename(ctx, src, renamed))
	_, err = vfs.CopyWithMode(ctx, fsys, copied, fsys, renamed, vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = vfs.CopyWithMode(ctx, fsys, taken, fsys, renamed, vfs.NoOverwrite)
	require.ErrorIs(t, err, fs.ErrExist)

	blobs := srv.Client().ServiceClient().NewContainerClient(container)
	bucket, err := azureblob.OpenBucket(ctx, blobs, nil)
	require.NoError(t, err)
	defer bucket.Close()
	for _, p := range []vfs.Path{renamed, copied} {
		props, err := blobs.NewBlobClient(p.Path()[1:]).GetProperties(ctx, nil)
		require.NoError(t, err, "properties of %s", p)
		require.NotNil(t, props.CopyStatus, "%s was not made by Copy Blob: the bytes went through this process", p)
		require.EqualValues(t, "success", *props.CopyStatus, "copy status of %s", p)
		attrs, err := bucket.Attributes(ctx, p.Path()[1:])
		require.NoError(t, err, "attributes of %s", p)
		require.NotEmpty(t, attrs.Metadata[blobfs.WriteIDMetadata], "%s has no write id in its metadata as blobfs reads it (%v)", p, attrs.Metadata)
		got, err := vfs.ReadFile(ctx, fsys, p)
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, got), "%s differs from what was written", p)
	}
	got, err := vfs.ReadFile(ctx, fsys, taken)
	require.NoError(t, err)
	require.Equal(t, "kept", string(got), "a refused copy changed its destination")
	ok, err := vfs.Exists(ctx, fsys, src)
	require.NoError(t, err)
	require.False(t, ok, "the renamed source is still there")
}

package azblob_test

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/vfs"
)

// TestRecoverableCommitCarriesWriteID: the committed blob carries the write
// id where gocloud's driver reads it, so a repeated commit is recognised, not
// redone.
func TestRecoverableCommitCarriesWriteID(t *testing.T) {
	srv := azuritetest.Shared(t)
	ctx := t.Context()
	name, err := srv.NewContainer(ctx)
	require.NoError(t, err)
	fsys, err := azblob.New(ctx, name, azblob.Options{ConnectionString: srv.ConnectionString})
	require.NoError(t, err)
	w, err := vfs.NewRecoverableWriter(fsys)
	require.NoError(t, err)
	s, err := w.Open(ctx, vfs.MustPath("azblob://"+name+"/id/f"))
	require.NoError(t, err)
	com, err := s.CloseForCommit(ctx)
	require.NoError(t, err)
	require.NoError(t, com.Commit(ctx))
	attrs, err := fsys.Bucket().Attributes(ctx, "id/f")
	require.NoError(t, err)
	require.Len(t, attrs.Metadata[blobfs.WriteIDMetadata], 32, "metadata %v", attrs.Metadata)
}

// uncommitted lists the blobs under prefix that hold uncommitted blocks.
func uncommitted(t *testing.T, c *container.Client, prefix string) []string {
	t.Helper()
	var out []string
	pager := c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: &prefix,
		Include: container.ListBlobsInclude{UncommittedBlobs: true}})
	for pager.More() {
		page, err := pager.NextPage(t.Context())
		require.NoError(t, err)
		for _, b := range page.Segment.BlobItems {
			bl, err := c.NewBlockBlobClient(*b.Name).GetBlockList(t.Context(), "uncommitted", nil)
			require.NoError(t, err)
			if len(bl.UncommittedBlocks) > 0 {
				out = append(out, *b.Name)
			}
		}
	}
	return out
}

package azblob_test

import (
	"context"
	"os"
	"testing"

	sdkblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	sdkblockblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/stretchr/testify/require"

	_ "github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/vfs"
)

func TestMain(m *testing.M) { os.Exit(azuritetest.Main(m)) }

// TestConformance runs the shared suite on azblob:// through vfs's default
// registry, against Azurite reached with AZURE_STORAGE_CONNECTION_STRING.
func TestConformance(t *testing.T) {
	srv := azuritetest.Shared(t)
	container, err := srv.NewContainer(t.Context())
	require.NoError(t, err)
	other, err := srv.NewContainer(t.Context())
	require.NoError(t, err)
	buckettest.ConformanceWith(t, "azblob", container, func(h *conformance.Harness) {
		h.OtherFileSystem = func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			fsys, err := vfs.Get(t.Context(), "azblob://"+other+"/")
			require.NoError(t, err)
			return fsys, vfs.MustPath("azblob://" + other + "/").Join(t.Name())
		}
		h.FolderBlobs = true
		h.PutObject = func(ctx context.Context, dir vfs.Path, name string, data []byte, contentType string, md map[string]string) error {
			opts := &sdkblockblob.UploadBufferOptions{HTTPHeaders: &sdkblob.HTTPHeaders{BlobContentType: &contentType}, Metadata: map[string]*string{}}
			for k, v := range md {
				opts.Metadata[k] = &v
			}
			_, err := srv.Client().UploadBuffer(ctx, container, dir.Path()[1:]+"/"+name, data, opts)
			return err
		}
		// Staged blocks that were never committed do not show in listings.
		h.RecoverableLeftovers = func(ctx context.Context, _ vfs.FileSystem, dir vfs.Path) ([]string, error) {
			return uncommitted(t, srv.Client().ServiceClient().NewContainerClient(container), dir.Path()[1:]+"/"), nil
		}
	})
}

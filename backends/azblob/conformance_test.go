package azblob_test

import (
	"context"
	"os"
	"testing"

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
		// Staged blocks that were never committed do not show in listings.
		h.RecoverableLeftovers = func(ctx context.Context, _ vfs.FileSystem, dir vfs.Path) ([]string, error) {
			return uncommitted(t, srv.Client().ServiceClient().NewContainerClient(container), dir.Path()[1:]+"/"), nil
		}
	})
}

package azblob_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/vfskit/vfskit/backends/azblob"
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
	fsys, err := vfs.Get(t.Context(), "azblob://"+container+"/")
	require.NoError(t, err)
	conformance.Run(t, conformance.Harness{
		Registered: true,
		New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			dir := vfs.MustPath("azblob://" + container + "/conformance").Join(t.Name())
			t.Cleanup(func() { _ = fsys.Delete(context.Background(), dir, true) })
			return fsys, dir
		},
	})
}

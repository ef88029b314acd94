package azblob_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/internal/azuritetest"
)

func TestMain(m *testing.M) { os.Exit(azuritetest.Main(m)) }

// TestConformance runs the shared suite on azblob:// through vfs's default
// registry, against Azurite reached with AZURE_STORAGE_CONNECTION_STRING.
func TestConformance(t *testing.T) {
	container, err := azuritetest.Shared(t).NewContainer(t.Context())
	require.NoError(t, err)
	buckettest.Conformance(t, "azblob", container)
}

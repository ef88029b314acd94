package checkpointstorage_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/vfskit/vfskit/backends/azblob"
	_ "github.com/vfskit/vfskit/backends/gcs"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/gcstest"
	"github.com/vfskit/vfskit/vfs"
)

// gs:// and azblob:// are reached as a user reaches them, through vfs's default
// registry with the emulator in the environment (STORAGE_EMULATOR_HOST,
// AZURE_STORAGE_CONNECTION_STRING); each test gets its own bucket or container.
var gcsBackend = backend{name: "gs", objectStore: true, base: func(t *testing.T) vfs.Path {
	return vfs.MustPath("gs://" + gcstest.Shared(t).NewBucket() + "/checkpoints")
}}

var azureBackend = backend{name: "azblob", objectStore: true, base: func(t *testing.T) vfs.Path {
	srv := azuritetest.Shared(t) // skips (or fails with VFSKIT_REQUIRE_AZURITE=1) when unavailable
	container, err := srv.NewContainer(t.Context())
	require.NoError(t, err)
	return vfs.MustPath("azblob://" + container + "/checkpoints")
}}

func init() { testBackends = append(testBackends, gcsBackend, azureBackend) }

package gcs_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/vfskit/vfskit/backends/gcs"
	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/internal/gcstest"
	"github.com/vfskit/vfskit/vfs"
)

// TestConformance runs the shared suite on gs:// through vfs's default
// registry, against fake-gcs-server reached with STORAGE_EMULATOR_HOST.
func TestConformance(t *testing.T) {
	srv := gcstest.Shared(t)
	other := srv.NewBucket()
	buckettest.ConformanceWith(t, "gs", srv.NewBucket(), func(h *conformance.Harness) {
		h.OtherFileSystem = func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			fsys, err := vfs.Get(t.Context(), "gs://"+other+"/")
			require.NoError(t, err)
			return fsys, vfs.MustPath("gs://" + other + "/").Join(t.Name())
		}
	})
}

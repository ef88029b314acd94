package gcs_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/vfskit/vfskit/backends/gcs"
	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/internal/gcstest"
	"github.com/vfskit/vfskit/vfs"
)

// TestConformance runs the shared suite on gs:// through vfs's default
// registry, against fake-gcs-server reached with STORAGE_EMULATOR_HOST.
func TestConformance(t *testing.T) {
	srv := gcstest.Shared(t)
	bucket := srv.NewBucket()
	fsys, err := vfs.Get(t.Context(), "gs://"+bucket+"/")
	require.NoError(t, err)
	conformance.Run(t, conformance.Harness{
		Registered: true,
		New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			dir := vfs.MustPath("gs://" + bucket + "/conformance").Join(t.Name())
			t.Cleanup(func() { _ = fsys.Delete(context.Background(), dir, true) })
			return fsys, dir
		},
	})
}

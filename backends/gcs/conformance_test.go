package gcs_test

import (
	"context"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
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
	bucket := srv.NewBucket()
	buckettest.ConformanceWith(t, "gs", bucket, func(h *conformance.Harness) {
		h.PutObject = func(_ context.Context, dir vfs.Path, name string, data []byte, contentType string, md map[string]string) error {
			srv.Fake().CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: dir.Path()[1:] + "/" + name, ContentType: contentType, Metadata: md}, Content: data})
			return nil
		}
		h.OtherFileSystem = func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			fsys, err := vfs.Get(t.Context(), "gs://"+other+"/")
			require.NoError(t, err)
			return fsys, vfs.MustPath("gs://" + other + "/").Join(t.Name())
		}
	})
}

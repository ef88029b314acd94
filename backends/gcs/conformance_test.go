package gcs_test

import (
	"testing"

	_ "github.com/vfskit/vfskit/backends/gcs"
	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/internal/gcstest"
)

// TestConformance runs the shared suite on gs:// through vfs's default
// registry, against fake-gcs-server reached with STORAGE_EMULATOR_HOST.
func TestConformance(t *testing.T) {
	buckettest.Conformance(t, "gs", gcstest.Shared(t).NewBucket())
}

package gcs

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/internal/gcstest"
	"github.com/vfskit/vfskit/vfs"
)

// TestDeleteVersionIsConditional: the delete sends ifGenerationMatch, and
// fake-gcs-server refuses another generation.
func TestDeleteVersionIsConditional(t *testing.T) {
	bucket := gcstest.Shared(t).NewBucket()
	fsys, err := New(t.Context(), bucket, Options{})
	require.NoError(t, err)
	del := func(key, v string) error { return store{}.DeleteVersion(t.Context(), fsys.Bucket(), bucket, key, v) }
	buckettest.ConditionalDelete(t, fsys, vfs.MustPath("gs://"+bucket+"/cond"), "cond", del, "1")
}

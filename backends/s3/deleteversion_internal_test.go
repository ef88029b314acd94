package s3

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestDeleteVersionIsConditional: the delete sends If-Match, and SeaweedFS
// refuses another ETag.
func TestDeleteVersionIsConditional(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	bucket := srv.NewBucket(t)
	client := srv.Client(nil)
	fsys, err := New(context.Background(), bucket, Options{Client: client})
	require.NoError(t, err)
	store := &exactStore{client: client, bucket: bucket}
	del := func(key, v string) error { return store.DeleteVersion(t.Context(), nil, bucket, key, v) }
	buckettest.ConditionalDelete(t, fsys, vfs.MustPath("s3://"+bucket+"/cond"), "cond", del, `"0123456789abcdef0123456789abcdef"`)
}

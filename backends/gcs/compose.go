package gcs

import (
	"context"
	"errors"

	"cloud.google.com/go/storage"

	"github.com/vfskit/vfskit/backends/blobfs"
)

// MaxComposeSources is the most source objects one GCS compose request
// takes.
const MaxComposeSources = 32

var _ blobfs.Composer = store{}

// MaxComposeSources is GCS's limit: 32.
func (store) MaxComposeSources() int { return MaxComposeSources }

// Compose composes srcs into dst server-side (one request): blobfs commits
// a recoverable stream's pieces with it, in rounds of 32. Names are exact.
func (s store) Compose(ctx context.Context, dst string, srcs []string, o blobfs.UploadOptions) error {
	if s.client == nil {
		return errors.New("gcs: the bucket is not a GCS bucket of gocloud's gcsblob driver, so it cannot compose")
	}
	objs := make([]*storage.ObjectHandle, len(srcs))
	b := s.client.Bucket(s.bucket)
	for i, k := range append([]string{dst}, srcs...) {
		if i > 0 {
			objs[i-1] = b.Object(k)
		}
	}
	c := b.Object(dst).ComposerFrom(objs...)
	c.ContentType = o.ContentType
	c.Metadata = o.Metadata
	_, err := c.Run(ctx)
	return err
}

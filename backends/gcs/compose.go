package gcs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"

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
// a recoverable stream's pieces with it, in rounds of 32. Names are exact. A
// source with a version is composed only at that generation
// (ifGenerationMatch).
func (s store) Compose(ctx context.Context, dst string, srcs, versions []string, o blobfs.UploadOptions) error {
	if s.client == nil {
		return errors.New("gcs: the bucket is not a GCS bucket of gocloud's gcsblob driver, so it cannot compose")
	}
	objs := make([]*storage.ObjectHandle, len(srcs))
	b := s.client.Bucket(s.bucket)
	for i, k := range append([]string{dst}, srcs...) {
		if i > 0 {
			objs[i-1] = b.Object(k)
			if v := versions[i-1]; v != "" {
				gen, err := strconv.ParseInt(v, 10, 64)
				if err != nil || gen <= 0 {
					return fmt.Errorf("%w: generation %q of %q", fs.ErrInvalid, v, k)
				}
				objs[i-1] = objs[i-1].If(storage.Conditions{GenerationMatch: gen})
			}
		}
	}
	c := b.Object(dst).ComposerFrom(objs...)
	c.ContentType = o.ContentType
	c.Metadata = o.Metadata
	_, err := c.Run(ctx)
	return err
}

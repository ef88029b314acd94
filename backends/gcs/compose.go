package gcs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

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
// a recoverable stream's pieces with it, in rounds of 32. Keys that
// gocloud's driver would store escaped (line breaks, "../", "__0x") are
// refused: compose names objects directly.
func (s store) Compose(ctx context.Context, dst string, srcs []string, o blobfs.UploadOptions) error {
	if s.client == nil {
		return errors.New("gcs: the bucket is not a GCS bucket of gocloud's gcsblob driver, so it cannot compose")
	}
	objs := make([]*storage.ObjectHandle, len(srcs))
	b := s.client.Bucket(s.bucket)
	for i, k := range append([]string{dst}, srcs...) {
		if strings.ContainsAny(k, "\n\r") || strings.Contains(k, "../") || strings.Contains(k, "__0x") {
			return fmt.Errorf("%w: compose cannot name the object %q exactly (it holds a line break, \"../\" or \"__0x\", which the driver escapes); choose another name", fs.ErrInvalid, k)
		}
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

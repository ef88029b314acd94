package gcs

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"cloud.google.com/go/storage"
	"gocloud.dev/blob"
	"google.golang.org/api/googleapi"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/plainkey"
)

// store is the blobfs.Store of GCS buckets: keys go through gocloud's driver
// (its escaping is documented in the package), and the GETs of one stream are
// conditional on the generation its first response had
// (blobfs.ConditionalReader), so a stream never returns bytes of two versions
// of an object.
type store struct {
	// client and bucket are the GCS client and bucket name, for composing
	// (compose.go); client is nil when the bucket is not GCS's.
	client *storage.Client
	bucket string
}

var (
	_ blobfs.ConditionalReader  = store{}
	_ blobfs.ConditionalDeleter = store{}
	_ blobfs.EnforcingDeleter   = store{}
	_ blobfs.WriteVersioner     = store{}
)

func init() {
	// blobfs.URLFactory on gs:// bucket URLs: the bucket is the URL's host.
	_ = blobfs.RegisterStore("gs", func(b *blob.Bucket, u *url.URL) (blobfs.Store, error) {
		var c *storage.Client
		if !b.As(&c) {
			c = nil
		}
		return store{client: c, bucket: u.Host}, nil
	})
}

// CheckKey accepts every key: GCS answers a name it cannot hold, and blobfs
// checks Options.MaxKeyLength.
func (store) CheckKey(string, bool) error { return nil }

// ReadVersion returns the generation of the object a GET read.
func (store) ReadVersion(r *blob.Reader) string {
	var sr *storage.Reader
	if !r.As(&sr) || sr == nil || sr.Attrs.Generation == 0 {
		return ""
	}
	return strconv.FormatInt(sr.Attrs.Generation, 10)
}

// HeadVersion returns the generation a HEAD (object metadata) told: the
// ETag of the store's own Attributes, which is the generation.
func (store) HeadVersion(a *blob.Attributes) string {
	var oa storage.ObjectAttrs
	if !a.As(&oa) {
		if _, err := strconv.ParseInt(a.ETag, 10, 64); err != nil || a.ETag == "0" {
			return ""
		}
		return a.ETag
	}
	if oa.Generation == 0 {
		return ""
	}
	return strconv.FormatInt(oa.Generation, 10)
}

// ListVersion returns the generation a listing told (blobfs.ListVersioner).
func (store) ListVersion(o *blob.ListObject) string {
	var oa storage.ObjectAttrs
	if !o.As(&oa) || oa.Generation == 0 {
		return ""
	}
	return strconv.FormatInt(oa.Generation, 10)
}

// BeforeReadVersion makes the GET conditional on the generation
// (ifGenerationMatch); GCS answers a replaced object with 412.
func (store) BeforeReadVersion(v string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		gen, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return errors.New("gcs: generation " + strconv.Quote(v) + " is not a number")
		}
		var obj **storage.ObjectHandle
		if !as(&obj) {
			return errors.New("gcs: the GCS driver did not expose its object handle, so the read cannot be conditional on the object's generation")
		}
		*obj = (*obj).If(storage.Conditions{GenerationMatch: gen})
		return nil
	}
}

// WatchWrite makes a write tell the generation it created
// (blobfs.WriteVersioner): its hook keeps the driver's *storage.Writer, whose
// attributes after Close hold the new object's generation.
func (store) WatchWrite(ctx context.Context) (context.Context, func(as func(any) bool) error, func() string) {
	var w *storage.Writer
	hook := func(as func(any) bool) error {
		if !as(&w) {
			w = nil
		}
		return nil
	}
	return ctx, hook, func() string {
		if w == nil || w.Attrs() == nil || w.Attrs().Generation == 0 {
			return ""
		}
		return strconv.FormatInt(w.Attrs().Generation, 10)
	}
}

// EnforcesDeleteVersion reports true: DeleteVersion names the generation it
// deletes, which GCS (and fake-gcs-server) never apply to another one.
func (store) EnforcesDeleteVersion(context.Context, *blob.Bucket, string, string) bool { return true }

// DeleteVersion deletes the object key of the bucket name only if its
// generation is still v (the generation named, and ifGenerationMatch): GCS
// answers another generation with 404 or 412. The key is sent exactly.
func (store) DeleteVersion(ctx context.Context, b *blob.Bucket, name, key, v string) error {
	gen, err := strconv.ParseInt(v, 10, 64)
	var client *storage.Client
	if err != nil || !b.As(&client) {
		return errors.ErrUnsupported
	}
	// Naming the generation makes the delete conditional even where
	// ifGenerationMatch is not honoured (fake-gcs-server): another
	// generation is not found (404).
	err = client.Bucket(name).Object(key).Generation(gen).If(storage.Conditions{GenerationMatch: gen}).Delete(ctx)
	var apiErr *googleapi.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, storage.ErrObjectNotExist):
		return &plainkey.StatusError{Code: http.StatusNotFound, Err: err}
	case errors.As(err, &apiErr):
		return &plainkey.StatusError{Code: apiErr.Code, Err: err}
	}
	return err
}

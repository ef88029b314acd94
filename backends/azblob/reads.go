package azblob

import (
	"context"
	"errors"
	"net/url"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/plainkey"
)

// store is the blobfs.Store of Azure containers: keys go through gocloud's
// driver, and the GETs of one stream are conditional on the ETag its first
// response had (If-Match, blobfs.ConditionalReader), so a stream never
// returns bytes of two versions of a blob.
type store struct {
	// client is the container's client, for the recoverable writer's
	// staged blocks (recoverable.go); nil when the bucket is not Azure's.
	client *container.Client
	// bucket is the driver's bucket, for Attributes (names.go).
	bucket *blob.Bucket
	// exact is true when client sends exact blob names (exactNames).
	exact bool
}

var (
	_ blobfs.ConditionalReader  = store{}
	_ blobfs.ConditionalDeleter = store{}
	_ blobfs.EnforcingDeleter   = store{}
	_ blobfs.WriteVersioner     = store{}
	_ blobfs.ExactKeys          = store{}
)

// newStore returns the store of bucket.
func newStore(bucket *blob.Bucket) store {
	var c *container.Client
	if !bucket.As(&c) {
		c = nil
	}
	_, exact := exactClients.Load(c)
	return store{client: c, bucket: bucket, exact: exact}
}

func init() {
	// blobfs.URLFactory on azblob:// bucket URLs.
	_ = blobfs.RegisterStore("azblob", func(b *blob.Bucket, _ *url.URL) (blobfs.Store, error) { return newStore(b), nil })
}

// CheckKey accepts every key: Azure answers a name it cannot hold, and
// blobfs checks Options.MaxKeyLength.
func (store) CheckKey(string, bool) error { return nil }

// ReadVersion returns the ETag of the download behind r.
func (store) ReadVersion(r *blob.Reader) string {
	var resp azblobblob.DownloadStreamResponse
	if !r.As(&resp) || resp.ETag == nil {
		return ""
	}
	return string(*resp.ETag)
}

// HeadVersion returns the ETag a HEAD (blob properties) told.
func (store) HeadVersion(a *blob.Attributes) string { return a.ETag }

// BeforeReadVersion adds If-Match: etag to the download; Azure answers a
// replaced blob with 412 (ConditionNotMet).
func (store) BeforeReadVersion(etag string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var opts *azblobblob.DownloadStreamOptions
		if !as(&opts) {
			return errors.New("azblob: the Azure driver did not expose its download options, so the read cannot be conditional on the blob's ETag")
		}
		if opts.AccessConditions == nil {
			opts.AccessConditions = &azblobblob.AccessConditions{}
		}
		if opts.AccessConditions.ModifiedAccessConditions == nil {
			opts.AccessConditions.ModifiedAccessConditions = &azblobblob.ModifiedAccessConditions{}
		}
		tag := azcore.ETag(etag)
		opts.AccessConditions.ModifiedAccessConditions.IfMatch = &tag
		return nil
	}
}

// WatchWrite makes a write tell the ETag Azure answered the request that
// published the blob with (blobfs.WriteVersioner): the container clients
// this package makes pass it on from their transport. With a client made
// elsewhere the version is not told.
func (store) WatchWrite(ctx context.Context) (context.Context, func(as func(any) bool) error, func() string) {
	w := &writeWatch{}
	return context.WithValue(ctx, writeWatchKey{}, w), nil, w.version
}

// EnforcesDeleteVersion reports true: Azure (and Azurite) refuse a delete
// whose If-Match names another ETag.
func (store) EnforcesDeleteVersion(context.Context, *blob.Bucket, string, string) bool { return true }

// DeleteVersion deletes the blob key only if its ETag is still etag
// (If-Match): Azure answers another version with 412. Without a client that
// sends exact names, a key the driver would escape is not sent this way
// (errors.ErrUnsupported: blobfs then checks with a HEAD and deletes through
// the driver).
func (s store) DeleteVersion(ctx context.Context, b *blob.Bucket, _, key, etag string) error {
	var client *container.Client
	if !b.As(&client) {
		return errors.ErrUnsupported
	}
	if _, exact := exactClients.Load(client); exact {
		key = sdkName(key)
	} else if !plainkey.Plain(key) {
		return errors.ErrUnsupported
	}
	tag := azcore.ETag(etag)
	_, err := client.NewBlobClient(key).Delete(ctx, &azblobblob.DeleteOptions{
		AccessConditions: &azblobblob.AccessConditions{
			ModifiedAccessConditions: &azblobblob.ModifiedAccessConditions{IfMatch: &tag},
		},
	})
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return &plainkey.StatusError{Code: re.StatusCode, Err: err}
	}
	return err
}

package blobfs

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// AuthorityPlaceholder is replaced, in a bucket URL given to URLFactory or
// RegisterURL, with the authority of the vfskit URI being opened.
const AuthorityPlaceholder = "{authority}"

// URLFactory returns a vfs.Factory that serves a vfskit scheme with gocloud
// buckets opened by URL (blob.OpenBucket): gs://, azblob://, s3://, mem://,
// file://, or any scheme a gocloud driver registers. The driver must be linked
// in (for example import _ "gocloud.dev/blob/gcsblob").
//
// In bucketURL, "{authority}" is replaced with the authority of the vfskit URI,
// so "gs://{authority}" serves gcs://my-bucket/ from gs://my-bucket. The query
// parameters given on the first use of a vfskit URI are added to the bucket
// URL's. opts is used for every file system the factory makes, with Scheme and
// Authority taken from the URI; Distributed is forced true except for mem:// and
// file:// buckets, and Store, when unset, is the one RegisterStore registered
// for the bucket URL's scheme (the s3 backend registers "s3": import it for
// exact keys, batch deletes and its own uploads and listings, in parts of
// opts.PartSize, on s3:// bucket URLs).
func URLFactory(bucketURL string, opts Options) vfs.Factory {
	return URLFactoryMux(blob.DefaultURLMux(), bucketURL, opts)
}

// URLFactoryMux is URLFactory with the buckets opened through mux instead of
// gocloud's default one: a backend registers its own opener there (the gcs
// and azblob backends do, to give the driver their HTTP client, with its
// timeout and retries).
func URLFactoryMux(mux *blob.URLMux, bucketURL string, opts Options) vfs.Factory {
	return func(ctx context.Context, uri *url.URL) (vfs.FileSystem, error) {
		authority := uri.Host
		if uri.User != nil {
			authority = uri.User.String() + "@" + uri.Host
		}
		// Messages name the vfskit URI without its user info, which the bucket
		// URL and the driver's errors may repeat (vfs.Redact hides it in all).
		shown := vfs.RedactURL(&url.URL{Scheme: uri.Scheme, User: uri.User, Host: uri.Host, Path: "/"})
		raw := strings.ReplaceAll(bucketURL, AuthorityPlaceholder, authority)
		bu, err := url.Parse(raw)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // ue.URL is raw, password included
			}
			return nil, fmt.Errorf("blobfs: bucket URL %q with the authority of %s: %w", vfs.RedactURI(bucketURL), shown, vfs.RedactError(err))
		}
		if uri.RawQuery != "" {
			q := bu.Query()
			for k, vs := range uri.Query() {
				for _, v := range vs {
					q.Add(k, v)
				}
			}
			bu.RawQuery = q.Encode()
		}
		bucket, err := mux.OpenBucket(ctx, bu.String())
		if err != nil {
			return nil, fmt.Errorf("blobfs: open gocloud bucket %s for %s: %w", vfs.RedactURL(bu), shown, vfs.RedactError(err))
		}
		o := opts
		o.Scheme, o.Authority = uri.Scheme, authority
		if bu.Scheme != "mem" && bu.Scheme != "file" {
			o.Distributed = true
		}
		if fn := storeFor(bu.Scheme); o.Store == nil && fn != nil {
			if o.Store, err = fn(bucket, bu); err != nil {
				_ = bucket.Close()
				return nil, fmt.Errorf("blobfs: store of bucket %s for %s: %w", vfs.RedactURL(bu), shown, vfs.RedactError(err))
			}
		}
		fsys, err := New(bucket, o)
		if err != nil {
			_ = bucket.Close()
			return nil, err
		}
		return fsys, nil
	}
}

// RegisterURL registers scheme in vfs's default registry, served by
// URLFactory(bucketURL, opts): one call makes any gocloud bucket URL a vfskit
// scheme. For example RegisterURL("scratch", "mem://", Options{}) serves
// scratch://anything/ from an in-memory bucket per authority. It fails when the
// scheme is invalid or already registered.
func RegisterURL(scheme, bucketURL string, opts Options) error {
	return vfs.DefaultRegistry().Register(scheme, URLFactory(bucketURL, opts))
}

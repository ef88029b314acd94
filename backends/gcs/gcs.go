package gcs

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/httpguard"
	"github.com/vfskit/vfskit/vfs"
)

// Scheme is the URI scheme this package registers: gs, as gsutil, gcloud and
// Flink's GCS file system spell it.
const Scheme = "gs"

// QueryParameters are the query parameters a gs:// URI may give on a bucket's
// first use; they are gocloud's (gocloud.dev/blob/gcsblob) and
// RequestTimeoutParameter, and are declared with vfs.DeclareQuery.
var QueryParameters = []string{"access_id", "anonymous", "private_key_path", "universe_domain", RequestTimeoutParameter}

// MaxKeyLength is the longest object name GCS accepts, in bytes.
const MaxKeyLength = 1024

func init() {
	vfs.Register(Scheme, Factory(Options{}))
	vfs.DeclareQuery(Scheme, QueryParameters...)
}

// Options configures the file systems of a Factory. The zero value is ready to
// use.
type Options struct {
	// PartSize is the upload chunk size in bytes: a file up to this size is one
	// request, a larger one a resumable upload in chunks of this size. Zero
	// means the driver's default (16 MiB).
	PartSize int
	// Strict makes Open and Create check for a directory at the path, one
	// request each (see blobfs.Options.Strict).
	Strict bool
	// RequestTimeout bounds every request whose context has no deadline: when
	// the server makes no progress for this long (no response headers, no
	// request body bytes taken, no response body bytes while a Read waits),
	// the request fails with an error that matches context.DeadlineExceeded
	// and is not retried. Zero means DefaultRequestTimeout (30 s); a negative
	// value turns it off. The query parameter request_timeout (a Go duration)
	// on a bucket's first use overrides it.
	RequestTimeout time.Duration
	// Logger receives, at Debug, the SDK's full text of every error this
	// package replaces with a short one (a missing bucket, refused
	// credentials, an unreachable endpoint). Nil means slog's default logger.
	Logger *slog.Logger
}

// Factory returns a vfs.Factory for gs://BUCKET/ URIs with opts: register it
// on a private vfs.Registry under any scheme. The URI's authority is the
// bucket; its query parameters (on a bucket's first use) are gocloud's, and
// request_timeout.
func Factory(opts Options) vfs.Factory {
	bopts := blobfs.Options{
		PartSize:     opts.PartSize,
		MaxKeyLength: MaxKeyLength,
		Strict:       opts.Strict,
		// Store: the one registered for gs:// bucket URLs.
	}
	return func(ctx context.Context, uri *url.URL) (vfs.FileSystem, error) {
		if err := checkBucketName(uri); err != nil {
			return nil, err
		}
		u, timeout, err := httpguard.TimeoutParameter(uri, RequestTimeoutParameter, cmp.Or(opts.RequestTimeout, DefaultRequestTimeout))
		if err != nil {
			return nil, fmt.Errorf("gcs: %s: %w", vfs.RedactURL(uri), err)
		}
		mux := new(blob.URLMux)
		mux.RegisterBucket(Scheme, opener{timeout: timeout})
		o := bopts
		o.DescribeError = describer{bucket: uri.Host, log: cmp.Or(opts.Logger, slog.Default())}.describe
		return blobfs.URLFactoryMux(mux, "gs://"+blobfs.AuthorityPlaceholder, o)(ctx, u)
	}
}

// New returns a gs://bucket/ file system that is not registered anywhere.
func New(ctx context.Context, bucket string, opts Options) (*blobfs.FileSystem, error) {
	fsys, err := Factory(opts)(ctx, &url.URL{Scheme: Scheme, Host: bucket, Path: "/"})
	if err != nil {
		return nil, err
	}
	return fsys.(*blobfs.FileSystem), nil
}

// checkBucketName refuses a URI without a bucket, with user info, or whose
// bucket name GCS cannot hold (3 to 222 bytes of lowercase letters, digits,
// '-', '_' and '.').
func checkBucketName(uri *url.URL) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("gcs: %s: %w: "+format+" (want gs://BUCKET/path)", append([]any{vfs.RedactURL(uri), fs.ErrInvalid}, args...)...)
	}
	b := uri.Host
	switch {
	case uri.User != nil:
		return bad("the URI has user info")
	case b == "":
		return bad("no bucket in the URI")
	case len(b) < 3 || len(b) > 222:
		return bad("bucket name %q is %d bytes long; GCS wants 3 to 222", b, len(b))
	case strings.Trim(b, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != "":
		return bad("bucket name %q holds a character other than lowercase letters, digits, '-', '_' and '.'", b)
	}
	return nil
}

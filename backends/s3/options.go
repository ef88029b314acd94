package s3

import (
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/vfskit/vfskit/vfs"
)

// Defaults for Options.
const (
	// DefaultPartSize is the multipart part size: 8 MiB, the AWS SDK's.
	DefaultPartSize = 8 << 20
	// MinPartSize is the smallest part size S3 accepts (except for the last part).
	MinPartSize = 5 << 20
	// DefaultConcurrency is the number of parts uploaded at once.
	DefaultConcurrency = 5
	// DefaultMaxAttempts is how many times a request is tried, throttling
	// (503 SlowDown, 429) and transient errors included: 10, so that even with
	// a fifth of all requests throttled a request fails about once in ten
	// million, and a server restart of a few seconds is ridden out.
	DefaultMaxAttempts = 10
	// DefaultRequestTimeout is how long a request whose context has no deadline
	// may make no progress before it fails with a *TimeoutError.
	DefaultRequestTimeout = 30 * time.Second
	// MaxKeyLength is the longest object key S3 accepts, in bytes.
	MaxKeyLength = 1024
	// PathStyleEnv, set to "true", makes every client use path-style addressing
	// (http://endpoint/bucket/key), as most S3-compatible stores want.
	PathStyleEnv = "VFSKIT_S3_PATH_STYLE"
)

// Options overrides the configuration that the AWS SDK's default chain
// (environment, shared config files and profiles, AWS_ENDPOINT_URL_S3, instance
// roles) gives. Zero fields mean "no override". Options never print secrets:
// String and GoString leave credentials out.
type Options struct {
	// Client, when set, is used as is: Endpoint, Region, PathStyle, Credentials,
	// HTTPClient, MaxAttempts, RetryMaxBackoff and RequestTimeout are then
	// ignored.
	Client *awss3.Client

	// Endpoint is the S3 endpoint URL, such as http://127.0.0.1:8333 for a local
	// S3-compatible store. Empty means the default chain's (AWS_ENDPOINT_URL_S3,
	// AWS_ENDPOINT_URL, endpoint_url in the profile) or AWS's.
	Endpoint string
	// Region is the signing region. Empty means the default chain's, or
	// us-east-1 when the chain has none.
	Region string
	// Profile selects a profile of the shared config and credentials files
	// (~/.aws/config, ~/.aws/credentials); empty means AWS_PROFILE or "default".
	Profile string
	// PathStyle forces path-style addressing. Without it, path style is used when
	// VFSKIT_S3_PATH_STYLE=true or the endpoint's host is an IP address or
	// localhost.
	PathStyle bool
	// Credentials, when set, replaces the default chain's credentials.
	Credentials aws.CredentialsProvider
	// HTTPClient, when set, sends every request (tests pass a counting client).
	// It is used as is, also when AWS_CA_BUNDLE is set: the bundle applies to
	// the SDK's own client only, so give this client's transport the roots it
	// needs.
	HTTPClient *http.Client

	// PartSize is the multipart part size in bytes (at least MinPartSize); zero
	// means DefaultPartSize. Files smaller than it are uploaded with one PUT.
	PartSize int
	// Concurrency is how many parts an upload sends at once; zero means
	// DefaultConcurrency. An upload holds at most PartSize × (Concurrency+1)
	// bytes of part buffers (a file smaller than PartSize: about its size).
	Concurrency int

	// MaxAttempts is how many times a request is tried; zero means
	// DefaultMaxAttempts. Throttling answers (503 SlowDown, 429) are retried with
	// the SDK's jittered exponential backoff.
	MaxAttempts int
	// RetryMaxBackoff caps the delay between attempts; zero means the SDK's (20 s).
	RetryMaxBackoff time.Duration

	// RequestTimeout bounds every request whose context has no deadline: when
	// the server makes no progress for this long (no response headers, no
	// request body bytes taken, no response body bytes while a Read waits), the
	// request fails with a *TimeoutError, which matches context.DeadlineExceeded
	// and is not retried. Zero means DefaultRequestTimeout (30 s); a negative
	// value turns the default off. A context with a deadline is left alone: the
	// caller has chosen. Raise it for stores that answer a large server-side copy
	// only when it is done (SeaweedFS does; AWS S3 answers at once).
	RequestTimeout time.Duration

	// AllowBackslash lets keys hold '\' on an S3-compatible endpoint. By
	// default keys with '\' are refused (fs.ErrInvalid) on every endpoint but
	// AWS's, because stores such as SeaweedFS store '\' as '/': "a\b" would
	// reach the object "a/b". AWS S3 keeps '\' and always allows it. Set this
	// for an S3-compatible store that keeps it too.
	AllowBackslash bool

	// Logger receives the AWS SDK's own log lines (warnings at Info, the rest
	// at Debug), at Debug the SDK's full text of every error this package
	// replaces with a short one, and at Warn each upload marker that could
	// not be deleted (MarkerLeftMessage). Nil means slog's default logger.
	Logger *slog.Logger

	// Strict makes Open HEAD the object, so that a missing file or a directory
	// fails at Open rather than at the first Read, and makes Create's Close list
	// one key under "p/" to refuse a directory at p (see blobfs.Options.Strict).
	// It costs one request each. By default Open + Seek send no request and
	// creating a small file is exactly one PUT.
	Strict bool
}

// String describes the options without credentials.
func (o Options) String() string {
	creds := "default chain"
	if o.Credentials != nil {
		creds = "set (hidden)"
	}
	client := "built from config"
	if o.Client != nil {
		client = "given"
	}
	return fmt.Sprintf("s3.Options{Client: %s, Endpoint: %q, Region: %q, Profile: %q, PathStyle: %t, Credentials: %s, PartSize: %d, Concurrency: %d, MaxAttempts: %d, RetryMaxBackoff: %s, RequestTimeout: %s, Strict: %t}",
		client, vfs.RedactURI(o.Endpoint), o.Region, o.Profile, o.PathStyle, creds, o.PartSize, o.Concurrency, o.MaxAttempts, o.RetryMaxBackoff, o.RequestTimeout, o.Strict)
}

// GoString is String, so %#v does not print credentials either.
func (o Options) GoString() string { return o.String() }

var global struct {
	mu   sync.Mutex
	opts Options
}

// SetOptions sets the process-wide Options used by the s3, s3a and s3p schemes of
// vfs's default registry for every bucket first used after the call (the
// registry caches one file system per bucket). URL query parameters given on a
// bucket's first use override them.
func SetOptions(o Options) {
	global.mu.Lock()
	global.opts = o
	global.mu.Unlock()
}

// CurrentOptions returns the process-wide Options.
func CurrentOptions() Options {
	global.mu.Lock()
	defer global.mu.Unlock()
	return global.opts
}

package s3

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"gocloud.dev/blob/s3blob"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/httpguard"
	"github.com/vfskit/vfskit/vfs"
)

// Schemes are the URI schemes this package registers, as Flink does.
var Schemes = []string{"s3", "s3a", "s3p"}

// QueryParameters are the query parameters a URI may give on a bucket's first
// use (see Factory); they are declared with vfs.DeclareQuery for every scheme.
var QueryParameters = []string{"region", "endpoint", "profile", "use_path_style", "request_timeout"}

func init() {
	for _, s := range Schemes {
		vfs.Register(s, factory)
		vfs.DeclareQuery(s, QueryParameters...)
	}
}

// failTimeout bounds the abort of a failed multipart upload, which runs on a fresh
// context so that a cancelled Create context still aborts it.
const failTimeout = 30 * time.Second

// factory serves the default registry with the process-wide Options.
func factory(ctx context.Context, uri *url.URL) (vfs.FileSystem, error) {
	return Factory(CurrentOptions())(ctx, uri)
}

// Factory returns a vfs.Factory for S3 with opts: register it on a private
// vfs.Registry under any scheme. The URI's authority is the bucket; its query
// parameters (given on a bucket's first use) override opts: region,
// endpoint, profile, use_path_style (true or false), request_timeout
// (Options.RequestTimeout, a Go duration such as 2m).
func Factory(opts Options) vfs.Factory {
	return func(ctx context.Context, uri *url.URL) (vfs.FileSystem, error) {
		o := opts
		bucket := uri.Host
		if uri.User != nil {
			return nil, fmt.Errorf("s3: %w: URI %s has user info; want %s://BUCKET/path", fs.ErrInvalid, uri.Redacted(), uri.Scheme)
		}
		q, err := url.ParseQuery(uri.RawQuery)
		if err != nil {
			return nil, fmt.Errorf("s3: %w: query of %s://%s/: %v", fs.ErrInvalid, uri.Scheme, bucket, err)
		}
		for k, vs := range q {
			v := vs[len(vs)-1]
			switch k {
			case "region":
				o.Region = v
			case "endpoint":
				o.Endpoint = v
			case "profile":
				o.Profile = v
			case "use_path_style":
				b, err := strconv.ParseBool(v)
				if err != nil {
					return nil, fmt.Errorf("s3: %w: use_path_style=%q in %s://%s/ is not a boolean", fs.ErrInvalid, v, uri.Scheme, bucket)
				}
				o.PathStyle = b
			case "request_timeout":
				d, err := time.ParseDuration(v)
				if err != nil {
					return nil, fmt.Errorf("s3: %w: request_timeout=%q in %s://%s/ is not a duration such as 30s or 2m", fs.ErrInvalid, v, uri.Scheme, bucket)
				}
				o.RequestTimeout = d
			default:
				return nil, fmt.Errorf("s3: %w: unknown query parameter %q in %s://%s/ (known: %s)", fs.ErrInvalid, k, uri.Scheme, bucket, strings.Join(QueryParameters, ", "))
			}
		}
		return newFileSystem(ctx, uri.Scheme, bucket, o)
	}
}

// New returns an s3://bucket/ file system that is not registered anywhere,
// configured by the AWS SDK's default chain overridden by opts.
func New(ctx context.Context, bucket string, opts Options) (*blobfs.FileSystem, error) {
	return newFileSystem(ctx, "s3", bucket, opts)
}

func newFileSystem(ctx context.Context, scheme, bucket string, o Options) (*blobfs.FileSystem, error) {
	if err := checkBucketName(bucket); err != nil {
		return nil, fmt.Errorf("s3: %s://%s/: %w", scheme, bucket, err)
	}
	if o.PartSize == 0 {
		o.PartSize = DefaultPartSize
	}
	if o.Concurrency == 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	switch {
	case o.PartSize < MinPartSize:
		return nil, fmt.Errorf("s3: %w: part size %d is below S3's minimum of %d bytes (5 MiB)", fs.ErrInvalid, o.PartSize, MinPartSize)
	case o.Concurrency < 0 || o.MaxAttempts < 0 || o.RetryMaxBackoff < 0:
		return nil, fmt.Errorf("s3: %w: negative value in %v", fs.ErrInvalid, o)
	}
	if o.Endpoint != "" {
		if u, err := url.Parse(o.Endpoint); err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("s3: %w: endpoint %q is not a URL such as https://s3.example.com or http://127.0.0.1:8333", fs.ErrInvalid, vfs.RedactURI(o.Endpoint))
		}
	}
	client, checksum, err := o.client(ctx)
	if err != nil {
		return nil, fmt.Errorf("s3: configure client for bucket %q: %w", bucket, vfs.RedactError(err))
	}
	endpoint := describeEndpoint(client)
	bkt, err := s3blob.OpenBucket(ctx, client, bucket, &s3blob.Options{RequestChecksumCalculation: checksum})
	if err != nil {
		return nil, fmt.Errorf("s3: open bucket %q at %s: %w", bucket, endpoint, vfs.RedactError(err))
	}
	exact, err := Store(bkt, bucket)
	if err != nil {
		_ = bkt.Close()
		return nil, err
	}
	store := &clientStore{exactStore: exact.(*exactStore), partSize: o.PartSize, concurrency: o.Concurrency, log: o.Logger}
	// Only AWS's own endpoints are known to keep '\' in keys (the store's
	// CheckKey refuses it elsewhere, naming Options.AllowBackslash).
	store.refuseBackslash = !o.AllowBackslash && customEndpoint(client)
	if checksum != aws.RequestChecksumCalculationWhenRequired {
		store.checksum = s3types.ChecksumAlgorithmCrc32
	}
	return blobfs.New(bkt, blobfs.Options{
		Scheme:       scheme,
		Authority:    bucket,
		Distributed:  true,
		PartSize:     o.PartSize,
		Concurrency:  o.Concurrency,
		MaxKeyLength: MaxKeyLength,
		Store:        store,
		Strict:       o.Strict,
		// Only AWS's own endpoints are known to keep no directory entries
		// (SeaweedFS's filer does).
		DirectoryEntries: customEndpoint(client),
		BeforeCopy:       encodeCopySource,
		DescribeError:    func(err error) error { return describeError(err, bucket, endpoint, o.Logger) },
	})
}

// encodeCopySource rewrites the x-amz-copy-source of a CopyObject request as
// "bucket/key" with every byte but unreserved characters and '/' percent-encoded.
// The driver sends the query-escaped form ('/' as %2F, ' ' as '+'), which some
// S3-compatible stores decode wrongly (gofakes3 cuts the key at a '?').
func encodeCopySource(as func(any) bool) error {
	var in *awss3.CopyObjectInput
	if !as(&in) || in.CopySource == nil {
		return nil
	}
	raw, err := url.QueryUnescape(*in.CopySource)
	if err != nil {
		return nil
	}
	in.CopySource = aws.String(copySource(raw))
	return nil
}

// copySource is the x-amz-copy-source of "bucket/key" raw: every byte but
// unreserved characters and '/' percent-encoded.
func copySource(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~/", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// client builds the S3 client: Options.Client, or one from the default chain with
// the overrides. It also returns the request checksum setting for uploads.
func (o Options) client(ctx context.Context) (*awss3.Client, aws.RequestChecksumCalculation, error) {
	if o.Client != nil {
		return o.Client, o.Client.Options().RequestChecksumCalculation, nil
	}
	var loads []func(*config.LoadOptions) error
	if o.Region != "" {
		loads = append(loads, config.WithRegion(o.Region))
	}
	if o.Profile != "" {
		loads = append(loads, config.WithSharedConfigProfile(o.Profile))
	}
	if o.Credentials != nil {
		loads = append(loads, config.WithCredentialsProvider(o.Credentials))
	}
	maxAttempts, maxBackoff, requestTimeout := o.MaxAttempts, o.RetryMaxBackoff, o.RequestTimeout
	loads = append(loads, config.WithLogger(sdkLogger{log: o.Logger}))
	loads = append(loads, config.WithRetryer(func() aws.Retryer {
		return refusedBound{retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = maxAttempts
			if maxBackoff > 0 {
				so.MaxBackoff = maxBackoff
			}
			// No client-side retry quota: under sustained throttling keep backing
			// off instead of failing fast with "retry quota exceeded".
			so.RateLimiter = ratelimit.None
			// A stalled request fails once (see TimeoutError); S3's "try again"
			// answer to racing conditional writes is retried.
			so.Retryables = append([]retry.IsErrorRetryable{noRetryStall, noRetryTLSMismatch}, so.Retryables...)
			so.Retryables = append(so.Retryables, retry.RetryableErrorCode{Codes: map[string]struct{}{"ConditionalRequestConflict": {}}})
		})}
	}))
	cfg, err := config.LoadDefaultConfig(ctx, loads...)
	if err != nil {
		return nil, aws.RequestChecksumCalculationUnset, err
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	forcePathStyle := o.PathStyle || strings.EqualFold(os.Getenv(PathStyleEnv), "true")
	var custom bool
	client := awss3.NewFromConfig(cfg, func(so *awss3.Options) {
		if o.HTTPClient != nil {
			so.HTTPClient = o.HTTPClient
		}
		so.HTTPClient = stallGuard{next: so.HTTPClient, d: requestTimeout}
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
		custom = so.BaseEndpoint != nil && !isAWSEndpoint(*so.BaseEndpoint)
		if forcePathStyle || so.BaseEndpoint != nil && isIPOrLocalhost(*so.BaseEndpoint) {
			so.UsePathStyle = true
		}
		// S3-compatible stores often reject the SDK's default trailing checksums;
		// send checksums only where S3 requires them, unless the user chose.
		if custom && os.Getenv("AWS_REQUEST_CHECKSUM_CALCULATION") == "" {
			so.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		}
		if custom && os.Getenv("AWS_RESPONSE_CHECKSUM_VALIDATION") == "" {
			so.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		}
	})
	return client, client.Options().RequestChecksumCalculation, nil
}

// customEndpoint reports whether client talks to an endpoint other than AWS's.
func customEndpoint(client *awss3.Client) bool {
	ep := client.Options().BaseEndpoint
	return ep != nil && !isAWSEndpoint(*ep)
}

// isIPOrLocalhost reports whether endpoint's host is an IP address or localhost:
// such endpoints cannot serve virtual-hosted buckets, so path style is used.
func isIPOrLocalhost(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return h == "localhost" || strings.HasSuffix(h, ".localhost") || net.ParseIP(h) != nil
}

func isAWSEndpoint(endpoint string) bool {
	u, err := url.Parse(endpoint)
	return err == nil && (strings.HasSuffix(u.Hostname(), ".amazonaws.com") || strings.HasSuffix(u.Hostname(), ".amazonaws.com.cn"))
}

// describeEndpoint names the endpoint a client sends to, for error messages,
// with its secrets hidden (vfs.Redact): an endpoint URL may carry user info or a
// signed query.
func describeEndpoint(c *awss3.Client) string {
	o := c.Options()
	if o.BaseEndpoint != nil && *o.BaseEndpoint != "" {
		return vfs.RedactURI(*o.BaseEndpoint)
	}
	return fmt.Sprintf("AWS S3 (region %s)", o.Region)
}

// BucketNotFoundError is returned when the bucket does not exist at the endpoint.
// It deliberately matches no io/fs sentinel: a missing bucket is a
// configuration error, not a missing file. It matches vfs.ErrBucketNotExist.
type BucketNotFoundError struct {
	Bucket   string
	Endpoint string // redacted (vfs.Redact) when this package makes the error
}

// Error names the bucket and the endpoint, with the endpoint's secrets hidden.
func (e *BucketNotFoundError) Error() string {
	return fmt.Sprintf("bucket %q does not exist at endpoint %s (NoSuchBucket): check the bucket's name, --endpoint and --region, or create it", e.Bucket, vfs.RedactURI(e.Endpoint))
}

// Is reports whether target is vfs.ErrBucketNotExist.
func (e *BucketNotFoundError) Is(target error) bool { return target == vfs.ErrBucketNotExist }

// describeError replaces the errors a user must act on with a short message
// naming the bucket, the endpoint, the cause and the fix: a missing bucket,
// missing or refused credentials, access denied, an endpoint that cannot be
// reached. The SDK's own text goes to log at debug level. Other errors pass
// unchanged.
func describeError(err error, bucket, endpoint string, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	return httpguard.Describe(log, "s3", err, func(err error) error { return describe(err, bucket, endpoint) })
}

func describe(err error, bucket, endpoint string) error {
	short := func(format string, args ...any) error {
		return &httpguard.Error{Msg: fmt.Sprintf(format, args...), Err: vfs.RedactError(err)}
	}
	if cause, ok := httpguard.Unreachable(err); ok {
		return short("cannot reach endpoint %s: %s; check --endpoint, AWS_ENDPOINT_URL_S3 or the profile's endpoint_url", endpoint, cause)
	}
	if msg := err.Error(); strings.Contains(msg, "failed to refresh cached credentials") || strings.Contains(msg, "failed to retrieve credentials") {
		return short("no AWS credentials found for bucket %q: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (--profile) naming a profile of ~/.aws/credentials", bucket)
	}
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return err
	}
	switch ae.ErrorCode() {
	case "NoSuchBucket":
		return &BucketNotFoundError{Bucket: bucket, Endpoint: endpoint}
	case "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken", "TokenRefreshRequired":
		return short("credentials refused for bucket %q at endpoint %s (%s): check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the profile", bucket, endpoint, ae.ErrorCode())
	case "AccessDenied", "Forbidden":
		return short("access denied to bucket %q at endpoint %s: the credentials lack the permission (check the bucket policy or the IAM policy of AWS_ACCESS_KEY_ID or the profile)", bucket, endpoint)
	}
	return err
}

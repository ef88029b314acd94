package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Region is the region every test server answers for.
const Region = "us-east-1"

// RequireEnv is the environment variable that turns an S3 server that cannot
// start from a skip into a test failure. `make test` (and so CI) sets it to "1".
const RequireEnv = "VFSKIT_REQUIRE_S3"

// Server is a running S3-compatible server. Its fields are read-only.
type Server struct {
	// Name says which server this is: "seaweedfs" or "gofakes3".
	Name string
	// Endpoint is the server's base URL, http://127.0.0.1:PORT.
	Endpoint string
	// Region is the region to sign requests for (always [Region]).
	Region string
	// AccessKeyID and SecretAccessKey are the credentials the server accepts.
	AccessKeyID     string
	SecretAccessKey string
	// Bucket is a bucket created when the server started.
	Bucket string

	stop    func() error
	kill    func() error
	restart func(ctx context.Context) error
}

// Kill kills the server process with SIGKILL, as a crash would, and waits until
// it is gone; its data directory and ports are kept for Restart. Only servers
// from StartSeaweedFS can be killed: on others Kill fails.
func (s *Server) Kill() error {
	if s.kill == nil {
		return fmt.Errorf("s3test: %s cannot be killed (only StartSeaweedFS servers can)", s.Name)
	}
	return s.kill()
}

// Restart starts a killed server again on the same ports, data directory and
// credentials, and waits (a bounded number of polls) until it serves its bucket.
// Data the server had made durable before the kill is there again.
func (s *Server) Restart(ctx context.Context) error {
	if s.restart == nil {
		return fmt.Errorf("s3test: %s cannot be restarted (only StartSeaweedFS servers can)", s.Name)
	}
	return s.restart(ctx)
}

// Config returns an aws.Config for the server: static credentials, the region and
// the endpoint. httpClient may be nil (the SDK's default client).
func (s *Server) Config(httpClient *http.Client) aws.Config {
	cfg := aws.Config{
		Region:       s.Region,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKeyID, s.SecretAccessKey, ""),
		BaseEndpoint: aws.String(s.Endpoint),
		// Test servers are S3-compatible stores: checksums only where required.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
	if httpClient != nil {
		cfg.HTTPClient = httpClient
	}
	return cfg
}

// Client returns a plain AWS SDK S3 client for the server, with path-style
// addressing. httpClient may be nil; pass Counter.HTTPClient() to count requests.
func (s *Server) Client(httpClient *http.Client) *s3.Client {
	return s3.NewFromConfig(s.Config(httpClient), func(o *s3.Options) { o.UsePathStyle = true })
}

// Env returns the environment variables that point the AWS SDK's default chain
// (and so vfskit's s3:// backend in another process) at this server, as
// "KEY=value" strings.
func (s *Server) Env() []string {
	return []string{
		"AWS_ACCESS_KEY_ID=" + s.AccessKeyID,
		"AWS_SECRET_ACCESS_KEY=" + s.SecretAccessKey,
		"AWS_REGION=" + s.Region,
		"AWS_ENDPOINT_URL_S3=" + s.Endpoint,
		"VFSKIT_S3_PATH_STYLE=true",
	}
}

// SetEnv sets Env's variables for the duration of the test (t.Setenv), so code
// that reads the AWS default chain reaches this server.
func (s *Server) SetEnv(t testing.TB) {
	t.Helper()
	for _, kv := range s.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	// A profile or session token from the developer's environment must not leak in.
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_SESSION_TOKEN", "")
}

// NewBucket creates a bucket with a fresh random name and returns the name.
func (s *Server) NewBucket(t testing.TB) string {
	t.Helper()
	name := RandomName("vfskit-")
	if err := s.CreateBucket(context.Background(), name); err != nil {
		t.Fatalf("s3test: create bucket %q on %s at %s: %v", name, s.Name, s.Endpoint, err)
	}
	return name
}

// MultipartUploads returns the keys of the multipart uploads in progress in
// bucket (one listing page), failing t when the listing fails.
func (s *Server) MultipartUploads(t testing.TB, bucket string) map[string]bool {
	t.Helper()
	out, err := s.Client(nil).ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatalf("s3test: list the multipart uploads of %q on %s: %v", bucket, s.Name, err)
	}
	keys := map[string]bool{}
	for _, u := range out.Uploads {
		keys[aws.ToString(u.Key)] = true
	}
	return keys
}

// CreateBucket creates the bucket name on the server.
func (s *Server) CreateBucket(ctx context.Context, name string) error {
	_, err := s.Client(nil).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)})
	return err
}

// Close stops the server and removes its data. It is safe to call twice.
func (s *Server) Close() error {
	if s.stop == nil {
		return nil
	}
	stop := s.stop
	s.stop = nil
	return stop()
}

// String describes the server without its secret.
func (s *Server) String() string {
	return fmt.Sprintf("%s at %s (bucket %s)", s.Name, s.Endpoint, s.Bucket)
}

// RandomName returns prefix followed by 12 random lowercase hex digits: a valid
// bucket name for a short prefix of lowercase letters, digits and '-'.
func RandomName(prefix string) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return prefix + hex.EncodeToString(b[:])
}

// Required reports whether VFSKIT_REQUIRE_S3=1: an S3 server that cannot start
// is then a failure, not a skip.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// unavailable skips or fails t (see the package doc's policy) for a server that
// could not start.
func unavailable(t testing.TB, what string, err error) {
	t.Helper()
	if Required() {
		t.Fatalf("s3test: %s cannot start (%s=1, so this is a failure): %v", what, RequireEnv, err)
	}
	t.Skipf("s3test: skipping: %s is not available: %v\n"+
		"  To run this test: `make test` (builds the pinned SeaweedFS once and sets %s=1),\n"+
		"  or build it with scripts/build-seaweedfs.sh (`make s3-server` also starts it) and rerun.",
		what, err, RequireEnv)
}

package gcs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"cloud.google.com/go/storage"
	"github.com/googleapis/gax-go/v2"
	"gocloud.dev/blob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/gcp"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/option"

	"github.com/vfskit/vfskit/backends/internal/httpguard"
)

// Retries of a request (the storage client's retryer): a throttled (429) or
// failed (5xx) request, a reset connection, is tried MaxAttempts times with
// jittered exponential backoff from 200 ms up to 5 s; a refused connection is
// tried httpguard.RefusedAttempts times (within about 4 s: a restarting
// emulator is ridden out, an endpoint nobody listens on is not waited for); a
// TLS handshake answered in plain HTTP and a stalled request (RequestTimeout)
// are not retried.
const MaxAttempts = 10

// DefaultRequestTimeout is Options.RequestTimeout's default.
const DefaultRequestTimeout = httpguard.DefaultTimeout

// RequestTimeoutParameter is the query parameter that sets Options.RequestTimeout
// on a bucket's first use, as a Go duration: gs://bucket/?request_timeout=2m.
const RequestTimeoutParameter = "request_timeout"

// opener opens gs:// buckets with vfskit's HTTP client: the no-progress
// timeout around every request, Application Default Credentials found before
// the first request (a missing credential is an error naming the fix, where
// gocloud's default opener prints a warning and goes on without), and the
// bounded retries above.
type opener struct{ timeout time.Duration }

// OpenBucketURL opens the bucket of u (gocloud's gcsblob URL).
func (o opener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	var rt http.RoundTripper = base
	anonymous, _ := strconv.ParseBool(u.Query().Get("anonymous"))
	if os.Getenv(EmulatorHostEnv) == "" && !anonymous {
		params := google.CredentialsParams{Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"}, UniverseDomain: u.Query().Get("universe_domain")}
		creds, err := google.FindDefaultCredentialsWithParams(ctx, params)
		if err != nil {
			return nil, &CredentialsError{Err: err}
		}
		rt = &oauth2.Transport{Source: creds.TokenSource, Base: base}
	}
	limit := o.timeout
	client := &http.Client{Transport: httpguard.Guard{Next: httpguard.Transport{RoundTripper: rt}, Limit: limit, Err: func(method, url string) error {
		return &httpguard.TimeoutError{Scheme: Scheme, Method: method, URL: url, Limit: limit,
			Setting: "gcs.Options.RequestTimeout, or ?" + RequestTimeoutParameter + "= on the bucket's first URI"}
	}}}
	copts := []option.ClientOption{option.WithHTTPClient(client)}
	if ep := emulatorEndpoint(); ep != "" {
		copts = append(copts, option.WithEndpoint(ep))
	}
	uo := &gcsblob.URLOpener{Client: &gcp.HTTPClient{Client: *client}, Options: gcsblob.Options{
		// Last, so they replace the client and the endpoint gcsblob picks
		// for an emulator or an anonymous bucket.
		ClientOptions: copts,
	}}
	b, err := uo.OpenBucketURL(ctx, u)
	if err != nil {
		return nil, err
	}
	var sc *storage.Client
	if b.As(&sc) {
		sc.SetRetry(
			storage.WithMaxAttempts(MaxAttempts),
			storage.WithBackoff(gax.Backoff{Initial: 200 * time.Millisecond, Max: 5 * time.Second, Multiplier: 2}),
			storage.WithErrorFuncWithContext(shouldRetry),
		)
	}
	return b, nil
}

// shouldRetry is the storage client's default choice with refused connections
// bounded and configuration mistakes and stalls not retried.
func shouldRetry(err error, rc *storage.RetryContext) bool {
	var te *httpguard.TimeoutError
	switch {
	case errors.As(err, &te), httpguard.IsTLSMismatch(err):
		return false
	case httpguard.IsRefused(err):
		return rc == nil || rc.Attempt < httpguard.RefusedAttempts
	}
	return storage.ShouldRetry(err)
}

// EmulatorHostEnv points the client at an emulator (fake-gcs-server), without
// credentials: STORAGE_EMULATOR_HOST=127.0.0.1:4443 (plain HTTP), or with a
// scheme, https://127.0.0.1:4443 for an emulator that speaks TLS.
const EmulatorHostEnv = "STORAGE_EMULATOR_HOST"

// emulatorEndpoint is the JSON API endpoint of an EmulatorHostEnv that names
// its scheme (gcsblob alone would put http:// in front of it), "" otherwise.
func emulatorEndpoint() string {
	host := os.Getenv(EmulatorHostEnv)
	u, err := url.Parse(host)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host + "/storage/v1/"
}

// CredentialsError is the error of a gs:// bucket opened without credentials:
// no Application Default Credentials were found.
type CredentialsError struct{ Err error }

// Error says what is missing and how to give it.
func (e *CredentialsError) Error() string {
	return fmt.Sprintf("no Google credentials found: set GOOGLE_APPLICATION_CREDENTIALS to a service account key file, run 'gcloud auth application-default login', or open a public bucket with ?anonymous=true (%s=host:port for an emulator)",
		EmulatorHostEnv)
}

// Unwrap returns the credentials lookup's error.
func (e *CredentialsError) Unwrap() error { return e.Err }

package s3

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"

	"github.com/vfskit/vfskit/backends/internal/httpguard"
)

// TimeoutError is the error of a request that made no progress for
// Options.RequestTimeout: no response headers, no request body bytes taken, or
// no response body bytes arrived, for that long. It matches
// context.DeadlineExceeded with errors.Is, and is not retried: a stalled server
// costs a caller RequestTimeout, not MaxAttempts times it.
type TimeoutError struct {
	Method, URL string        // the request
	Limit       time.Duration // Options.RequestTimeout
}

// Error names the request and the setting.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("s3: %s %s made no progress for %s (s3.Options.RequestTimeout; the context had no deadline)", e.Method, e.URL, e.Limit)
}

// Unwrap makes errors.Is(err, context.DeadlineExceeded) true.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// Timeout reports true, as net.Error does.
func (e *TimeoutError) Timeout() bool { return true }

// noRetryStall keeps the retryer from repeating a stalled request.
var noRetryStall = retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
	var te *TimeoutError
	if errors.As(err, &te) {
		return aws.FalseTernary
	}
	return aws.UnknownTernary
})

// httpDoer is what the SDK sends requests with.
type httpDoer interface {
	Do(*http.Request) (*http.Response, error)
}

// stallGuard bounds every request whose context has no deadline with
// httpguard.Guard: the request fails with a *TimeoutError when the server
// makes no progress for d.
type stallGuard struct {
	next httpDoer
	d    time.Duration
}

// Do sends req under the guard.
func (g stallGuard) Do(req *http.Request) (*http.Response, error) {
	return httpguard.Guard{Next: g.next, Limit: g.d, Err: func(method, url string) error {
		return &TimeoutError{Method: method, URL: url, Limit: g.d}
	}}.Do(req)
}

// noRetryTLSMismatch gives up at once on an https:// endpoint whose port
// speaks plain HTTP: no retry mends a configuration mistake.
var noRetryTLSMismatch = retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
	if httpguard.IsTLSMismatch(err) {
		return aws.FalseTernary
	}
	return aws.UnknownTernary
})

// refusedBound is the SDK's standard retryer with refused connections
// bounded: they are retried with backoffs of at most
// httpguard.RefusedMaxBackoff, and attempt httpguard.RefusedAttempts fails for
// good, so an endpoint nobody listens on fails within httpguard.RefusedBound
// while a restarting server is ridden out.
type refusedBound struct{ *retry.Standard }

// RetryDelay returns the delay before attempt+1, or an error that ends the
// retries of a refused connection.
func (r refusedBound) RetryDelay(attempt int, err error) (time.Duration, error) {
	d, derr := r.Standard.RetryDelay(attempt, err)
	if derr != nil || !httpguard.IsRefused(err) {
		return d, derr
	}
	if attempt >= httpguard.RefusedAttempts {
		return 0, fmt.Errorf("connection refused %d times: %w", attempt, err)
	}
	return min(d, httpguard.RefusedMaxBackoff), nil
}

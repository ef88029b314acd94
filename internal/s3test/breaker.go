package s3test

import (
	"errors"
	"net/http"
	"sync"
)

// ErrBroken is the error Breaker returns for the requests it fails, as a
// connection error from a server that went away would be.
var ErrBroken = errors.New("s3test: connection refused (server gone away)")

// Breaker is an http.RoundTripper that fails the requests Fail selects with
// ErrBroken and sends the others through. It simulates a server that goes away
// for some requests. Safe for concurrent use.
type Breaker struct {
	base http.RoundTripper
	// Fail is called for every request with its S3 operation name and the number
	// of earlier requests of that operation; true fails the request.
	fail func(op string, seen int) bool

	mu     sync.Mutex
	seen   map[string]int
	failed int
}

// NewBreaker returns a Breaker over base (nil means http.DefaultTransport).
func NewBreaker(base http.RoundTripper, fail func(op string, seen int) bool) *Breaker {
	if base == nil {
		base = http.DefaultTransport
	}
	return &Breaker{base: base, fail: fail, seen: map[string]int{}}
}

// HTTPClient returns an *http.Client that sends through the breaker.
func (b *Breaker) HTTPClient() *http.Client { return &http.Client{Transport: b} }

// Failed returns how many requests the breaker failed.
func (b *Breaker) Failed() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.failed
}

// RoundTrip fails the request when Fail says so, else sends it.
func (b *Breaker) RoundTrip(req *http.Request) (*http.Response, error) {
	op := Operation(req)
	b.mu.Lock()
	n := b.seen[op]
	b.seen[op]++
	fail := b.fail(op, n)
	if fail {
		b.failed++
	}
	b.mu.Unlock()
	if fail {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, ErrBroken
	}
	return b.base.RoundTrip(req)
}

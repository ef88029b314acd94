// Package httpguard holds what the cloud backends (s3, gcs, azblob) put around
// their HTTP clients: the no-progress timeout of a request (Guard) and the
// classification of connection failures that their SDKs' retryers use to give
// up at once (a TLS client speaking to a plain-HTTP port) or soon (a refused
// connection, RefusedAttempts).
package httpguard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vfskit/vfskit/vfs"
)

// DefaultTimeout is the no-progress timeout of every cloud backend's requests
// unless configured otherwise.
const DefaultTimeout = 30 * time.Second

// RefusedAttempts is how many times a request whose connection is refused is
// tried, with backoffs of at most RefusedMaxBackoff: a server that restarts
// within about two seconds is ridden out, an endpoint nobody listens on fails
// within RefusedBound.
const (
	RefusedAttempts   = 5
	RefusedMaxBackoff = time.Second
	// RefusedBound is the most time the attempts of a refused request can
	// take, backoffs included (the connections are refused at once).
	RefusedBound = (RefusedAttempts - 1) * RefusedMaxBackoff
)

// Doer sends a request, as *http.Client does.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Transport makes an http.RoundTripper a Doer.
type Transport struct{ http.RoundTripper }

// Do sends req with the round tripper.
func (t Transport) Do(req *http.Request) (*http.Response, error) { return t.RoundTrip(req) }

// Guard bounds every request whose context has no deadline: the request fails
// with Err's error when the server makes no progress for Limit. Progress is the
// transport taking request body bytes, the response headers arriving, and
// response body bytes arriving while the caller reads. Time the caller spends
// between reads does not count, and a body nobody reads holds no timer (and no
// goroutine). A Limit of zero or less turns the guard off.
type Guard struct {
	Next  Doer
	Limit time.Duration
	// Err returns the error of a stalled request; it is given the request's
	// method and its URL without query or user info.
	Err func(method, url string) error
}

// RoundTrip is Do, so that a Guard can be an http.Client's Transport.
func (g Guard) RoundTrip(req *http.Request) (*http.Response, error) { return g.Do(req) }

// Do sends req under the guard.
func (g Guard) Do(req *http.Request) (*http.Response, error) {
	if _, ok := req.Context().Deadline(); ok || g.Limit <= 0 {
		return g.Next.Do(req)
	}
	ctx, cancel := context.WithCancel(req.Context())
	w := &watchdog{d: g.Limit, cancel: cancel, err: g.Err(req.Method, redactURL(req))}
	req = req.WithContext(ctx)
	if req.Body != nil && req.Body != http.NoBody && req.ContentLength != 0 {
		req.Body = &progressReader{ReadCloser: req.Body, w: w, request: true}
		if getBody := req.GetBody; getBody != nil {
			// The transport's own resend (on a reused connection that died)
			// must count progress too.
			req.GetBody = func() (io.ReadCloser, error) {
				b, err := getBody()
				if err != nil {
					return nil, err
				}
				return &progressReader{ReadCloser: b, w: w, request: true}, nil
			}
		}
	}
	w.arm(false)
	resp, err := g.Next.Do(req)
	w.mu.Lock()
	w.responded = true
	w.mu.Unlock()
	if w.disarm() {
		if resp != nil {
			_ = resp.Body.Close()
		}
		cancel()
		return nil, w.err
	}
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &progressReader{ReadCloser: resp.Body, w: w}
	return resp, nil
}

// watchdog cancels the request's context when its timer fires.
type watchdog struct {
	d      time.Duration
	cancel context.CancelFunc
	err    error

	mu        sync.Mutex
	timer     *time.Timer
	fired     bool
	responded bool // the response (or an error) arrived
}

// arm (re)starts the timer; for the request body only until the response
// arrived.
func (w *watchdog) arm(request bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fired || request && w.responded {
		return
	}
	if w.timer == nil {
		w.timer = time.AfterFunc(w.d, w.fire)
	} else {
		w.timer.Reset(w.d)
	}
}

// disarm stops the timer and reports whether it had fired.
func (w *watchdog) disarm() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
	return w.fired
}

func (w *watchdog) fire() {
	w.mu.Lock()
	w.fired = true
	w.mu.Unlock()
	w.cancel()
}

// progressReader is a request or response body under the watchdog. The
// transport reading a request body is progress: each read re-arms the timer,
// which keeps running until the response arrives. A response body's timer runs
// only while Read waits.
type progressReader struct {
	io.ReadCloser
	w       *watchdog
	request bool
	closed  bool
}

// Read reads, under the watchdog.
func (r *progressReader) Read(p []byte) (int, error) {
	if r.request {
		n, err := r.ReadCloser.Read(p)
		r.w.arm(true)
		return n, err
	}
	r.w.arm(false)
	n, err := r.ReadCloser.Read(p)
	if r.w.disarm() {
		return n, r.w.err
	}
	return n, err
}

// Close closes the body; a response body's Close also releases the request's
// context.
func (r *progressReader) Close() error {
	err := r.ReadCloser.Close()
	if !r.request && !r.closed {
		r.closed = true
		r.w.disarm()
		r.w.cancel()
	}
	return err
}

// redactURL is the request URL without its query (which may carry a signature)
// and user info.
func redactURL(req *http.Request) string {
	u := *req.URL
	u.RawQuery, u.User = "", nil
	return u.String()
}

// IsRefused reports whether err is a refused connection (nobody listens on the
// endpoint's port, or the server is restarting).
func IsRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// IsTLSMismatch reports whether err is a TLS client's handshake answered by a
// server that does not speak TLS (an https:// endpoint on a plain-HTTP port):
// a configuration mistake that no retry mends.
func IsTLSMismatch(err error) bool {
	var rh tls.RecordHeaderError
	// net/http replaces the RecordHeaderError of a server that answered in
	// HTTP with an error of its own text.
	return errors.As(err, &rh) || err != nil && strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}

// Permanent wraps a transport error that no retry mends (IsTLSMismatch) so that
// Azure's retry policy gives up at once (it retries every transport error
// that does not have a NonRetriable method).
type Permanent struct{ Err error }

// Error is the wrapped error's message.
func (e *Permanent) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *Permanent) Unwrap() error { return e.Err }

// NonRetriable marks the error for azcore's retry policy.
func (*Permanent) NonRetriable() {}

// TimeoutError is the error of a request that made no progress for Limit, for
// the backends that have no type of their own (gcs, azblob). It matches
// context.DeadlineExceeded with errors.Is and is retried by no SDK.
type TimeoutError struct {
	Scheme, Method, URL string
	Limit               time.Duration
	// Setting names how to change the limit.
	Setting string
}

// Error names the request, the limit and the setting.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s: %s %s made no progress for %s (%s)", e.Scheme, e.Method, e.URL, e.Limit, e.Setting)
}

// Unwrap makes errors.Is(err, context.DeadlineExceeded) true.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// Timeout reports true, as net.Error does.
func (e *TimeoutError) Timeout() bool { return true }

// NonRetriable keeps azcore's retry policy from repeating a stalled request.
func (*TimeoutError) NonRetriable() {}

// TimeoutParameter returns uri without the query parameter name, and the
// duration that parameter gives (a Go duration such as 30s or 2m), or def
// when uri has none.
func TimeoutParameter(uri *url.URL, name string, def time.Duration) (*url.URL, time.Duration, error) {
	u := *uri
	if u.RawQuery == "" {
		return &u, def, nil
	}
	q := u.Query()
	d := def
	if v := q.Get(name); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			return nil, 0, fmt.Errorf("%w: %s=%q is not a duration such as 30s or 2m", fs.ErrInvalid, name, v)
		}
	}
	q.Del(name)
	u.RawQuery = q.Encode()
	return &u, d, nil
}

// Unreachable returns a short cause when err is a failure to reach the
// endpoint at all (refused, no such host, TLS spoken to a plain-HTTP port, an
// untrusted certificate), for a message that names the endpoint and the
// setting to fix.
func Unreachable(err error) (string, bool) {
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	switch {
	case err == nil:
		return "", false
	case IsRefused(err):
		return "connection refused (nothing listens on that port)", true
	case IsTLSMismatch(err):
		return "the endpoint speaks plain HTTP, not TLS (use an http:// endpoint)", true
	case errors.As(err, &dns):
		return fmt.Sprintf("host %q not found", dns.Name), true
	case errors.As(err, &unknownCA), errors.As(err, &hostname):
		return "its TLS certificate is not trusted", true
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to the host", true
	}
	return "", false
}

// Error is a short message for a person over an SDK's error, which it wraps
// (errors.Is, errors.As and gocloud's error codes still see it). The backends
// log the SDK's own text at debug level.
type Error struct {
	Msg string
	Err error
	// Kind, when set, is a sentinel the error also matches (errors.Is):
	// vfs.ErrBucketNotExist for a missing bucket or container.
	Kind error
}

// Error returns the short message.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the SDK's error.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is e.Kind.
func (e *Error) Is(target error) bool { return e.Kind != nil && target == e.Kind }

// Describe returns short(err): a short message for a person, or err itself.
// When it is a replacement, err's own text (redacted) goes to log at Debug,
// prefixed with the scheme, so that --log-level debug shows the SDK's detail.
func Describe(log *slog.Logger, scheme string, err error, short func(error) error) error {
	d := short(err)
	if d != err && log != nil {
		log.Debug(scheme+": "+d.Error(), "sdk_error", vfs.RedactError(err).Error())
	}
	return d
}

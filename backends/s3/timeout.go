package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
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

// stallGuard bounds every request whose context has no deadline: the request
// fails with a *TimeoutError when the server makes no progress for d. Progress
// is the transport taking request body bytes, the response headers arriving,
// and response body bytes arriving while the caller reads. Time the caller
// spends between reads does not count, and a body nobody reads holds no timer
// (and no goroutine).
type stallGuard struct {
	next httpDoer
	d    time.Duration
}

// Do sends req under the guard.
func (g stallGuard) Do(req *http.Request) (*http.Response, error) {
	if _, ok := req.Context().Deadline(); ok || g.d <= 0 {
		return g.next.Do(req)
	}
	ctx, cancel := context.WithCancel(req.Context())
	w := &watchdog{d: g.d, cancel: cancel, err: &TimeoutError{Method: req.Method, URL: redactURL(req), Limit: g.d}}
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
	resp, err := g.next.Do(req)
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
	err    *TimeoutError

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

// redactURL is the request URL without its query (which may carry a presigned
// signature).
func redactURL(req *http.Request) string {
	u := *req.URL
	u.RawQuery, u.User = "", nil
	return u.String()
}

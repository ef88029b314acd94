package chaos

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Attempts is an http.RoundTripper that counts the requests an AWS SDK client
// sends and how many of them are retries, from the SDK's amz-sdk-request header
// ("attempt=N; max=M"). It forwards to Base (http.DefaultTransport when nil).
type Attempts struct {
	Base http.RoundTripper

	mu       sync.Mutex
	requests int
	retries  int
	most     int
	limit    int
}

// RoundTrip counts req and sends it.
func (a *Attempts) RoundTrip(req *http.Request) (*http.Response, error) {
	attempt, limit := 0, 0
	for _, f := range strings.Split(req.Header.Get("amz-sdk-request"), ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
		n, _ := strconv.Atoi(v)
		switch k {
		case "attempt":
			attempt = n
		case "max":
			limit = n
		}
	}
	a.mu.Lock()
	a.requests++
	if attempt > 1 {
		a.retries++
	}
	a.most = max(a.most, attempt)
	a.limit = max(a.limit, limit)
	a.mu.Unlock()
	base := a.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(req)
}

// Counts returns the requests sent, how many were retries, the highest attempt
// number seen and the highest limit (max) the client announced.
func (a *Attempts) Counts() (requests, retries, most, limit int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.requests, a.retries, a.most, a.limit
}

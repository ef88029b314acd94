package faultproxy_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/faultproxy"
)

// origin is a server that counts the requests it got and answers each with body.
func origin(t *testing.T, body []byte) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		hits.Add(1)
		w.Header().Set("X-Host-Seen", r.Host)
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func start(t *testing.T, target string, f faultproxy.Faults) *faultproxy.Proxy {
	p, err := faultproxy.Start(target)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	p.Set(f)
	return p
}

// client never reuses a connection the proxy may have cut, and never retries.
func client() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
}

func TestForwardsUnchangedAndKeepsHost(t *testing.T) {
	body := bytes.Repeat([]byte("abc"), 1000)
	srv, hits := origin(t, body)
	p := start(t, srv.URL, faultproxy.Faults{})
	resp, err := client().Post(p.URL()+"/b/k?x=1", "text/plain", strings.NewReader("payload"))
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, body, got)
	assert.Equal(t, strings.TrimPrefix(p.URL(), "http://"), resp.Header.Get("X-Host-Seen"), "the Host the client signed reaches the server")
	assert.EqualValues(t, 1, hits.Load())
	assert.Equal(t, faultproxy.Counts{Requests: 1, Forwarded: 1}, p.Counts())
}

func TestDropForwardsThenCutsTheClientOff(t *testing.T) {
	srv, hits := origin(t, []byte("done"))
	p := start(t, srv.URL, faultproxy.Faults{Drop: 1})
	_, err := client().Post(p.URL()+"/b/k", "text/plain", strings.NewReader("payload"))
	require.Error(t, err, "a dropped response reaches the client as a connection error")
	assert.EqualValues(t, 1, hits.Load(), "the server did the work")
	c := p.Counts()
	assert.Equal(t, 1, c.Dropped)
	assert.Equal(t, 1, c.Forwarded)
}

func TestSlowDownAnswersWithoutForwarding(t *testing.T) {
	srv, hits := origin(t, []byte("done"))
	p := start(t, srv.URL, faultproxy.Faults{SlowDown: 1})
	resp, err := client().Get(p.URL() + "/b/k")
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Contains(t, string(got), "<Code>SlowDown</Code>")
	assert.Contains(t, string(got), "<Resource>/b/k</Resource>")
	assert.Zero(t, hits.Load(), "a throttled request never reaches the server")
	assert.Equal(t, faultproxy.Counts{Requests: 1, SlowDowns: 1}, p.Counts())
}

func TestAnswerRepliesToWhatMatchSelects(t *testing.T) {
	srv, hits := origin(t, []byte("done"))
	p := start(t, srv.URL, faultproxy.Faults{
		Match:  func(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/refused/") },
		Answer: &faultproxy.Answer{Status: http.StatusUnauthorized, Header: http.Header{"Content-Type": {"application/json"}}, Body: `{"error":{"code":401}}`},
		Drop:   1, // not applied: Answer wins
	})
	resp, err := client().Post(p.URL()+"/refused/k", "text/plain", strings.NewReader("payload"))
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Equal(t, `{"error":{"code":401}}`, string(got))
	assert.Zero(t, hits.Load(), "an answered request never reaches the server")

	resp, err = client().Get(p.URL() + "/other/k")
	require.NoError(t, err)
	got, err = io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, "done", string(got), "a request Match does not select is forwarded")
	assert.Equal(t, faultproxy.Counts{Requests: 2, Answered: 1, Forwarded: 1}, p.Counts())
}

// countingReader is n zero bytes that counts how many were read.
type countingReader struct {
	n    int64
	read atomic.Int64
}

func (r *countingReader) Read(p []byte) (int, error) {
	left := r.n - r.read.Load()
	if left <= 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), left))
	clear(p[:n])
	r.read.Add(int64(n))
	return n, nil
}

// TestEarlyAnswersBeforeTheBodyIsSent sends a 256 MiB body: the client has
// the proxy's 503 SlowDown while most of its body is still unsent, and the
// server never sees the request.
func TestEarlyAnswersBeforeTheBodyIsSent(t *testing.T) {
	srv, hits := origin(t, []byte("done"))
	p := start(t, srv.URL, faultproxy.Faults{Early: 1})
	body := &countingReader{n: 256 << 20}
	req, err := http.NewRequest(http.MethodPut, p.URL()+"/b/k", body)
	require.NoError(t, err)
	req.ContentLength = body.n
	resp, err := client().Do(req)
	read := body.read.Load()
	if err == nil { // else the connection's close won the race with the answer
		got, _ := io.ReadAll(resp.Body)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
		assert.Contains(t, string(got), "<Code>SlowDown</Code>")
	}
	assert.Less(t, read, body.n, "the answer came before the body was read")
	assert.Zero(t, hits.Load(), "nothing forwarded")
	c := p.Counts()
	assert.Equal(t, 1, c.Early)
	assert.Zero(t, c.Forwarded)
}

func TestCutStopsMidBody(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 10_000)
	srv, _ := origin(t, body)
	p := start(t, srv.URL, faultproxy.Faults{Cut: 1})
	for _, query := range []string{"", "?chunked=1"} {
		resp, err := client().Get(p.URL() + "/b/k" + query)
		require.NoError(t, err)
		if query == "" {
			assert.EqualValues(t, len(body), resp.ContentLength, "the full length is announced")
		}
		got, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		require.Error(t, err, "the body ends early (%q)", query)
		assert.Equal(t, body[:len(got)], got, "what arrived is a prefix of the body")
		assert.Less(t, len(got), len(body))
	}
	assert.Equal(t, 2, p.Counts().Cut)
}

func TestDelayMakesAnImpatientClientTimeOut(t *testing.T) {
	srv, hits := origin(t, []byte("late"))
	p := start(t, srv.URL, faultproxy.Faults{Delay: time.Hour})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL()+"/b/k", nil)
	require.NoError(t, err)
	_, err = client().Do(req)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualValues(t, 1, hits.Load())
	assert.Equal(t, 1, p.Counts().Delayed)
}

func TestFractionsAndMatch(t *testing.T) {
	srv, hits := origin(t, []byte("ok"))
	p := start(t, srv.URL, faultproxy.Faults{
		SlowDown: 0.25, Seed: 7,
		Match: func(r *http.Request) bool { return r.Method == http.MethodPut },
	})
	const n = 400
	c := client()
	for i := range n {
		method := http.MethodGet
		if i%2 == 0 {
			method = http.MethodPut
		}
		req, err := http.NewRequest(method, p.URL()+"/b/k", nil)
		require.NoError(t, err)
		resp, err := c.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if method == http.MethodGet {
			require.Equal(t, http.StatusOK, resp.StatusCode, "GET is not selected")
		}
	}
	got := p.Counts()
	assert.Equal(t, n, got.Requests)
	assert.InDelta(t, n/2*0.25, got.SlowDowns, n/2*0.25*0.5, "about a quarter of the PUTs are throttled")
	assert.EqualValues(t, n-got.SlowDowns, hits.Load())

	p.Reset()
	assert.Equal(t, faultproxy.Counts{}, p.Counts())
}

func TestStartRejectsABadTarget(t *testing.T) {
	_, err := faultproxy.Start("127.0.0.1:8333")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"127.0.0.1:8333"`)
}

// TestBeforeDeliversAfterTheClientGaveUp holds a request in Before until its
// client has given up: the request still reaches the server afterwards.
func TestBeforeDeliversAfterTheClientGaveUp(t *testing.T) {
	srv, hits := origin(t, []byte("ok"))
	held, gaveUp, answered := make(chan struct{}), make(chan struct{}), make(chan struct{})
	p := start(t, srv.URL, faultproxy.Faults{
		Before: func(*http.Request) { close(held); <-gaveUp },
		After:  func(*http.Request) { close(answered) },
	})
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, p.URL()+"/b/k", nil)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		resp, err := client().Do(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		done <- err
	}()
	<-held
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	assert.Zero(t, hits.Load(), "held: not at the server yet")
	close(gaveUp)
	<-answered
	assert.Equal(t, int64(1), hits.Load(), "the late request reached the server")
}

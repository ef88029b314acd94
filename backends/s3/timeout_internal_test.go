package s3

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trickle serves n bytes, one every gap, flushing each; with stallAt >= 0 it
// stops sending (but keeps the connection) after stallAt bytes.
func trickle(t *testing.T, n, stallAt int, gap time.Duration) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		for i := range n {
			if i == stallAt {
				<-r.Context().Done()
				return
			}
			_, _ = w.Write([]byte{'a' + byte(i%26)})
			w.(http.Flusher).Flush()
			select {
			case <-time.After(gap):
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, g stallGuard, url string) *http.Response {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := g.Do(req)
	require.NoError(t, err)
	return resp
}

func TestStallGuardLetsASlowButSteadyBodyThrough(t *testing.T) {
	srv := trickle(t, 20, -1, 20*time.Millisecond)
	g := stallGuard{next: http.DefaultClient, d: 200 * time.Millisecond}
	resp := get(t, g, srv.URL)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "400 ms in all, but never 200 ms without a byte")
	require.NoError(t, resp.Body.Close())
	assert.Len(t, got, 20)
}

func TestStallGuardCutsABodyThatStops(t *testing.T) {
	srv := trickle(t, 20, 5, time.Millisecond)
	g := stallGuard{next: http.DefaultClient, d: 100 * time.Millisecond}
	resp := get(t, g, srv.URL)
	got, err := io.ReadAll(resp.Body)
	var te *TimeoutError
	require.True(t, errors.As(err, &te), "want a *TimeoutError, got %v", err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, "abcde", string(got), "the bytes before the stall")
	assert.True(t, strings.HasPrefix(te.URL, srv.URL), te.URL)
	require.NoError(t, resp.Body.Close())
}

func TestStallGuardDoesNotCountTheCallersPauses(t *testing.T) {
	srv := trickle(t, 4, -1, time.Millisecond)
	g := stallGuard{next: http.DefaultClient, d: 50 * time.Millisecond}
	resp := get(t, g, srv.URL)
	buf := make([]byte, 1)
	var got []byte
	for range 4 {
		_, err := io.ReadFull(resp.Body, buf)
		require.NoError(t, err)
		got = append(got, buf[0])
		time.Sleep(120 * time.Millisecond) // the caller is busy, not the server
	}
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, "abcd", string(got))
}

func TestStallGuardLeavesDeadlinesAlone(t *testing.T) {
	srv := trickle(t, 3, -1, 100*time.Millisecond)
	g := stallGuard{next: http.DefaultClient, d: 10 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	resp, err := g.Do(req)
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "the caller's deadline, not RequestTimeout, bounds this request")
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, "abc", string(got))
}

// slowBody gives one byte per Read after a pause: an upload over a slow link.
type slowBody struct {
	left int
	gap  time.Duration
}

func (b *slowBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		return 0, io.EOF
	}
	time.Sleep(b.gap)
	b.left--
	p[0] = 'x'
	return 1, nil
}

func TestStallGuardCountsASlowUploadAsProgress(t *testing.T) {
	got := make(chan int, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got <- int(n)
	}))
	t.Cleanup(srv.Close)
	g := stallGuard{next: http.DefaultClient, d: 150 * time.Millisecond}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPut, srv.URL, io.NopCloser(&slowBody{left: 10, gap: 40 * time.Millisecond}))
	require.NoError(t, err)
	req.ContentLength = 10
	resp, err := g.Do(req)
	require.NoError(t, err, "400 ms of upload, never 150 ms without a byte taken")
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, 10, <-got)
}

package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// leakCheck gives a file system on the shared SeaweedFS whose connections the
// test can close, and the number of goroutines at rest after one request.
type leakCheck struct {
	fsys   *blobfs.FileSystem
	bucket string
	tr     *http.Transport
	base   int
}

func newLeakCheck(t *testing.T) *leakCheck {
	srv := s3test.SeaweedFS(t)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	o := optionsFor(srv, nil)
	o.HTTPClient = &http.Client{Transport: tr}
	o.PartSize = s3.MinPartSize
	fsys, bucket := newFS(t, srv, o)
	require.NoError(t, vfs.WriteFile(t.Context(), fsys, vfs.MustPath("/warm"), []byte("up"), vfs.Overwrite))
	lc := &leakCheck{fsys: fsys, bucket: bucket, tr: tr}
	lc.base = lc.settle(0)
	return lc
}

// settle closes idle connections and waits (a bounded number of polls) until
// at most want goroutines run (want 0: until the count stops falling); it
// returns the count.
func (lc *leakCheck) settle(want int) int {
	n := runtime.NumGoroutine()
	for range 300 {
		lc.tr.CloseIdleConnections()
		time.Sleep(10 * time.Millisecond)
		m := runtime.NumGoroutine()
		if want > 0 && m <= want || want == 0 && m == n {
			return m
		}
		n = m
	}
	return n
}

// requireNoLeak fails with a goroutine dump when more goroutines run than at
// rest.
func (lc *leakCheck) requireNoLeak(t *testing.T, what string) {
	t.Helper()
	if n := lc.settle(lc.base); n > lc.base {
		var dump strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&dump, 1)
		t.Fatalf("%s: %d goroutines left, %d at rest:\n%s", what, n, lc.base, dump.String())
	}
}

// startWrite creates path with NoOverwrite and writes data, leaving the stream
// open.
func startWrite(t *testing.T, ctx context.Context, fsys vfs.FileSystem, path string, data []byte) vfs.OutputStream {
	t.Helper()
	out, err := fsys.Create(ctx, vfs.MustPath(path), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write(data)
	require.NoError(t, err)
	return out
}

func TestStreamsHoldNoGoroutineAfterClose(t *testing.T) {
	lc := newLeakCheck(t)
	ctx := t.Context()
	big := bytes.Repeat([]byte("0123456789abcdef"), (2*s3.MinPartSize+17)/16)

	t.Run("WriterClosed", func(t *testing.T) {
		lc.base = lc.settle(0) // this subtest's goroutine counts too
		out := startWrite(t, ctx, lc.fsys, "/w", big)
		require.NoError(t, out.Close())
		lc.requireNoLeak(t, "multipart writer after Close")
	})
	t.Run("ReaderClosedMidBody", func(t *testing.T) {
		lc.base = lc.settle(0) // this subtest's goroutine counts too
		in, err := lc.fsys.Open(ctx, vfs.MustPath("/w"))
		require.NoError(t, err)
		buf := make([]byte, 10)
		_, err = io.ReadFull(in, buf)
		require.NoError(t, err)
		assert.Equal(t, big[:10], buf)
		require.NoError(t, in.Close())
		lc.requireNoLeak(t, "reader closed in the middle of its GET")
	})
	t.Run("WriterAborted", func(t *testing.T) {
		lc.base = lc.settle(0) // this subtest's goroutine counts too
		out := startWrite(t, ctx, lc.fsys, "/aborted", big)
		require.NoError(t, out.(vfs.Aborter).Abort())
		require.Error(t, out.Close())
		lc.requireNoLeak(t, "aborted writer")
		requireNoUploads(t, lc.bucket)
	})
}

// TestAbandonedStreamsAreReleasedByTheirContext never closes its streams: when
// the context given to Create or Open ends, the upload goroutine ends, the
// multipart upload is aborted and the GET's connection is released. Close
// stays required otherwise (no finalizer); it then reports the cancellation.
func TestAbandonedStreamsAreReleasedByTheirContext(t *testing.T) {
	lc := newLeakCheck(t)
	big := bytes.Repeat([]byte{5}, 2*s3.MinPartSize+1)
	require.NoError(t, vfs.WriteFile(t.Context(), lc.fsys, vfs.MustPath("/r"), big, vfs.Overwrite))
	lc.base = lc.settle(0)

	wctx, cancelWrite := context.WithCancel(t.Context())
	out := startWrite(t, wctx, lc.fsys, "/abandoned", big) // two parts are on their way
	rctx, cancelRead := context.WithCancel(t.Context())
	in, err := lc.fsys.Open(rctx, vfs.MustPath("/r"))
	require.NoError(t, err)
	_, err = io.ReadFull(in, make([]byte, 100))
	require.NoError(t, err)

	cancelWrite()
	cancelRead()
	lc.requireNoLeak(t, "streams abandoned with their context cancelled")
	requireNoUploads(t, lc.bucket)
	ok, err := vfs.Exists(t.Context(), lc.fsys, vfs.MustPath("/abandoned"))
	require.NoError(t, err)
	assert.False(t, ok, "nothing published")
	err = out.Close()
	require.ErrorIs(t, err, context.Canceled, "Close after the context ended says so")
	var pe interface{ Unwrap() error }
	assert.True(t, errors.As(err, &pe))
	require.NoError(t, in.Close())
}

// TestFailedUploadIsAborted throttles every part upload until the retries give
// up: the stream fails and its multipart upload is aborted on the server.
func TestFailedUploadIsAborted(t *testing.T) {
	faulty, direct, p, bucket := faulted(t, func(o *s3.Options) {
		o.PartSize = s3.MinPartSize
		o.MaxAttempts = 2
	})
	p.Set(faultproxy.Faults{SlowDown: 1, Match: func(r *http.Request) bool { return s3test.Operation(r) == s3test.OpUploadPart }})
	ctx := t.Context()
	err := vfs.WriteFile(ctx, faulty, vfs.MustPath("/failed"), bytes.Repeat([]byte{1}, 2*s3.MinPartSize+1), vfs.NoOverwrite)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SlowDown")
	requireNoUploads(t, bucket)
	ok, err := vfs.Exists(ctx, direct, vfs.MustPath("/failed"))
	require.NoError(t, err)
	assert.False(t, ok, "nothing published")
}

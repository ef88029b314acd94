package s3_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// onMarker selects the requests of operation op on an upload's marker.
func onMarker(op string) func(*http.Request) bool {
	return func(r *http.Request) bool {
		return s3test.Operation(r) == op && s3.IsUploadMarker(r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:])
	}
}

// firstN selects the first n requests that match selects.
func firstN(n int, match func(*http.Request) bool) func(*http.Request) bool {
	var mu sync.Mutex
	return func(r *http.Request) bool {
		if !match(r) {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		n--
		return n >= 0
	}
}

// markersIn returns the keys of the upload markers the bucket holds.
func markersIn(t *testing.T, bucket string) []string {
	t.Helper()
	out, err := s3test.SeaweedFS(t).Client(nil).ListObjectsV2(t.Context(), &awss3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	require.NoError(t, err)
	var keys []string
	for _, o := range out.Contents {
		k := aws.ToString(o.Key)
		if s3.IsUploadMarker(k[strings.LastIndexByte(k, '/')+1:]) {
			keys = append(keys, k)
		}
	}
	return keys
}

// bigData is the content of a multipart write (two parts of s3.MinPartSize).
func bigData(b byte) []byte { return bytes.Repeat([]byte{b}, s3.MinPartSize+4096+int(b)) }

// TestUploadMarkerGoneAfterLostAnswers writes a multipart file through a
// proxy that loses or throttles the answers around its marker: the completion
// (its retry meets the completed upload: 412 under NoOverwrite, NoSuchUpload
// otherwise), the marker's PUT and its DELETE, and a caller's context that
// ends once the server completed the upload. Each time the file is there
// byte for byte, and neither a marker nor a multipart upload is left.
func TestUploadMarkerGoneAfterLostAnswers(t *testing.T) {
	complete := func(r *http.Request) bool { return s3test.Operation(r) == s3test.OpCompleteMultipartUpload }
	cases := []struct {
		name   string
		mode   vfs.WriteMode
		faults faultproxy.Faults
		cancel bool // the caller's context ends once the completion reached the server
	}{
		{name: "completion's answer lost, NoOverwrite", mode: vfs.NoOverwrite, faults: faultproxy.Faults{Drop: 1, Match: firstN(1, complete)}},
		{name: "completion's answer lost, Overwrite", mode: vfs.Overwrite, faults: faultproxy.Faults{Drop: 1, Match: firstN(1, complete)}},
		{name: "marker PUT's answer lost", mode: vfs.NoOverwrite, faults: faultproxy.Faults{Drop: 1, Match: firstN(1, onMarker(s3test.OpPutObject))}},
		{name: "marker DELETE's answer lost", mode: vfs.NoOverwrite, faults: faultproxy.Faults{Drop: 1, Match: firstN(1, onMarker(s3test.OpDeleteObject))}},
		{name: "marker DELETE throttled", mode: vfs.NoOverwrite, faults: faultproxy.Faults{SlowDown: 1, Match: firstN(3, onMarker(s3test.OpDeleteObject))}},
		{name: "context ends after the completion", mode: vfs.NoOverwrite, faults: faultproxy.Faults{Match: firstN(1, complete)}, cancel: true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			faulty, direct, p, bucket := faulted(t, func(o *s3.Options) { o.PartSize = s3.MinPartSize })
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tc.cancel {
				tc.faults.After = func(*http.Request) { cancel() }
			}
			p.Set(tc.faults)
			path := vfs.MustPath(fmt.Sprintf("/dir/big-%d", i))
			data := bigData(byte(i + 1))
			err := vfs.WriteFile(ctx, faulty, path, data, tc.mode)
			if tc.cancel {
				require.ErrorIs(t, err, context.Canceled, "the caller's context ended before Close returned")
			} else {
				require.NoError(t, err)
				assert.Equal(t, 1, p.Counts().Dropped+p.Counts().SlowDowns/3, "the fault was injected")
			}
			requireContent(t, direct, path, data)
			assert.Empty(t, markersIn(t, bucket), "no marker left")
			requireNoUploads(t, bucket)
		})
	}
}

// TestUploadMarkerPutBeforeItsDelete ends the caller's context while the
// marker's PUT is on its way to the server, and delivers that PUT only after
// the client gave up on it (or, when the client waits for it, a moment
// later): the write fails with the context's error, and no marker arrives
// after the DELETE that follows the abort.
func TestUploadMarkerPutBeforeItsDelete(t *testing.T) {
	faulty, direct, p, bucket := faulted(t, func(o *s3.Options) { o.PartSize = s3.MinPartSize })
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	deleted := make(chan struct{})
	var once sync.Once
	p.Set(faultproxy.Faults{
		Match: func(r *http.Request) bool {
			return onMarker(s3test.OpPutObject)(r) || onMarker(s3test.OpDeleteObject)(r)
		},
		Before: func(r *http.Request) {
			if r.Method != http.MethodPut {
				return
			}
			cancel()
			select {
			case <-r.Context().Done(): // the client gave up on the PUT
				select {
				case <-deleted:
				case <-time.After(10 * time.Second):
				}
			case <-time.After(200 * time.Millisecond):
			}
		},
		After: func(r *http.Request) {
			if r.Method == http.MethodDelete {
				once.Do(func() { close(deleted) })
			}
		},
	})
	path := vfs.MustPath("/dir/big")
	err := vfs.WriteFile(ctx, faulty, path, bigData(1), vfs.NoOverwrite)
	require.ErrorIs(t, err, context.Canceled)
	<-deleted
	assert.Empty(t, markersIn(t, bucket), "no marker left")
	requireNoUploads(t, bucket)
	_, err = direct.Stat(t.Context(), path)
	require.ErrorIs(t, err, fs.ErrNotExist, "nothing published")
}

// logBuffer is a concurrency-safe buffer for a slog handler.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestUploadMarkerLeftWhenDeleteKeepsFailing throttles every DELETE of the
// marker: the write still succeeds (its data is published, byte for byte),
// the marker stays, the logger is told which, and vfs.CleanTemp removes it.
func TestUploadMarkerLeftWhenDeleteKeepsFailing(t *testing.T) {
	var logged logBuffer
	faulty, direct, p, bucket := faulted(t, func(o *s3.Options) {
		o.PartSize = s3.MinPartSize
		o.Logger = slog.New(slog.NewTextHandler(&logged, nil))
	})
	p.Set(faultproxy.Faults{SlowDown: 1, Match: onMarker(s3test.OpDeleteObject)})
	path := vfs.MustPath("/dir/big")
	data := bigData(7)
	require.NoError(t, vfs.WriteFile(t.Context(), faulty, path, data, vfs.NoOverwrite))
	requireContent(t, direct, path, data)
	requireNoUploads(t, bucket)
	left := markersIn(t, bucket)
	require.Len(t, left, 1, "the marker stays")
	assert.Equal(t, s3.DefaultMaxAttempts, p.Counts().SlowDowns, "the DELETE was tried as often as the client tries a request")
	assert.Contains(t, logged.String(), s3.MarkerLeftMessage)
	assert.Contains(t, logged.String(), "key="+left[0])
	entries, err := direct.List(t.Context(), vfs.MustPath("/dir"))
	require.NoError(t, err)
	require.Len(t, entries, 1, "listings leave the marker out")

	time.Sleep(1100 * time.Millisecond) // past the listing's one-second precision
	removed, err := vfs.CleanTemp(t.Context(), direct, vfs.MustPath("/dir"), 0)
	require.NoError(t, err)
	require.Len(t, removed, 1)
	assert.Equal(t, "/"+left[0], removed[0].Path())
	assert.Empty(t, markersIn(t, bucket))
	requireContent(t, direct, path, data)
}

package s3_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestInteropWithPlainSDK writes with vfskit and reads with the plain AWS SDK, and
// the reverse, against SeaweedFS: keys are exactly the path without its leading
// "/", and bytes round-trip unchanged (small and multipart objects).
func TestInteropWithPlainSDK(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	ctx := t.Context()
	o := optionsFor(srv, nil)
	o.PartSize = s3.MinPartSize
	fsys, bucket := newFS(t, srv, o)
	client := srv.Client(nil)

	small := []byte("written by vfskit\n")
	big := make([]byte, 3*s3.MinPartSize+123)
	for i := range big {
		big[i] = byte(i % 251)
	}
	files := map[string][]byte{"dir/sub/small.txt": small, "dir/big.bin": big, "with space/ünï.txt": small}
	for key, data := range files {
		require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("/"+key), data, vfs.NoOverwrite))
	}
	out, err := client.ListObjectsV2(ctx, &awss3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	require.NoError(t, err)
	var keys []string
	for _, obj := range out.Contents {
		keys = append(keys, aws.ToString(obj.Key))
	}
	assert.ElementsMatch(t, []string{"dir/sub/small.txt", "dir/big.bin", "with space/ünï.txt"}, keys, "aws s3 ls shows the paths without their leading /")
	for key, data := range files {
		got, err := client.GetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		require.NoError(t, err, key)
		b, err := io.ReadAll(got.Body)
		require.NoError(t, err)
		require.NoError(t, got.Body.Close())
		assert.True(t, bytes.Equal(data, b), "%s read back with the SDK differs", key)
	}

	// The reverse: the SDK writes, vfskit reads, lists and stats.
	fromSDK := bytes.Repeat([]byte("sdk "), 1000)
	_, err = client.PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("sdk/obj.dat"), Body: bytes.NewReader(fromSDK)})
	require.NoError(t, err)
	got, err := vfs.ReadFile(ctx, fsys, vfs.MustPath("s3://"+bucket+"/sdk/obj.dat"))
	require.NoError(t, err)
	assert.Equal(t, fromSDK, got)
	st, err := fsys.Stat(ctx, vfs.MustPath("/sdk/obj.dat"))
	require.NoError(t, err)
	assert.Equal(t, int64(len(fromSDK)), st.Size)
	entries, err := fsys.List(ctx, vfs.MustPath("/"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"dir", "sdk", "with space"}, names)
}

// throttler answers the first n requests with a throttling error, then passes
// requests through.
type throttler struct {
	base   http.RoundTripper
	status int
	code   string

	mu       sync.Mutex
	left     int
	requests int
}

func (th *throttler) RoundTrip(req *http.Request) (*http.Response, error) {
	th.mu.Lock()
	th.requests++
	throttle := th.left > 0
	if throttle {
		th.left--
	}
	th.mu.Unlock()
	if !throttle {
		return th.base.RoundTrip(req)
	}
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	body := `<?xml version="1.0" encoding="UTF-8"?><Error><Code>` + th.code + `</Code><Message>Please reduce your request rate.</Message></Error>`
	return &http.Response{
		StatusCode: th.status, Status: http.StatusText(th.status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/xml"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: req,
	}, nil
}

// TestThrottlingIsRetried answers the first requests with 503 SlowDown or 429:
// the SDK's retryer backs off and the operation succeeds.
func TestThrottlingIsRetried(t *testing.T) {
	srv := s3test.GoFakeS3(t)
	for _, c := range []struct {
		status int
		code   string
	}{{503, "SlowDown"}, {429, "TooManyRequests"}} {
		t.Run(c.code, func(t *testing.T) {
			th := &throttler{base: http.DefaultTransport, status: c.status, code: c.code, left: 3}
			o := optionsFor(srv, nil)
			o.HTTPClient = &http.Client{Transport: th}
			fsys, _ := newFS(t, srv, o)
			p := vfs.MustPath("/throttled")
			require.NoError(t, vfs.WriteFile(t.Context(), fsys, p, []byte("eventually"), vfs.Overwrite))
			got, err := vfs.ReadFile(t.Context(), fsys, p)
			require.NoError(t, err)
			assert.Equal(t, "eventually", string(got))
			assert.GreaterOrEqual(t, th.requests, 5, "3 throttled attempts, then the write, then the read")
		})
	}
}

func TestThrottlingGivesUpAfterMaxAttempts(t *testing.T) {
	srv := s3test.GoFakeS3(t)
	th := &throttler{base: http.DefaultTransport, status: 503, code: "SlowDown", left: 100}
	o := optionsFor(srv, nil)
	o.HTTPClient = &http.Client{Transport: th}
	o.MaxAttempts = 3
	fsys, _ := newFS(t, srv, o)
	_, err := fsys.Stat(t.Context(), vfs.MustPath("/x"))
	require.Error(t, err)
	assert.Equal(t, 3, th.requests, "three attempts, then the error")
}

// refuseConditionalCopy answers 501 NotImplemented to a CopyObject that
// carries If-None-Match, as some S3-compatible stores do.
type refuseConditionalCopy struct{ refused int }

func (rc *refuseConditionalCopy) RoundTrip(req *http.Request) (*http.Response, error) {
	if s3test.Operation(req) != s3test.OpCopyObject || req.Header.Get("If-None-Match") == "" {
		return http.DefaultTransport.RoundTrip(req)
	}
	rc.refused++
	body := `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code><Message>A header you provided implies functionality that is not implemented</Message></Error>`
	return &http.Response{
		StatusCode: http.StatusNotImplemented, Status: "501 Not Implemented", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/xml"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: req,
	}, nil
}

// TestRenameOnAStoreWithoutConditionalCopy: a store that refuses If-None-Match
// on CopyObject still renames (unconditionally, last writer wins a race).
func TestRenameOnAStoreWithoutConditionalCopy(t *testing.T) {
	srv := s3test.GoFakeS3(t)
	rc := &refuseConditionalCopy{}
	o := optionsFor(srv, nil)
	o.HTTPClient = &http.Client{Transport: rc}
	fsys, _ := newFS(t, srv, o)
	ctx := t.Context()
	require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("/a"), []byte("moved"), vfs.NoOverwrite))
	require.NoError(t, fsys.Rename(ctx, vfs.MustPath("/a"), vfs.MustPath("/b")))
	assert.Equal(t, 1, rc.refused, "the conditional copy was tried first")
	got, err := vfs.ReadFile(ctx, fsys, vfs.MustPath("/b"))
	require.NoError(t, err)
	assert.Equal(t, "moved", string(got))
}

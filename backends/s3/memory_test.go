package s3_test

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// sinkS3 is an http.RoundTripper that answers the multipart upload API and
// discards every body, so a test measures the client's memory alone.
type sinkS3 struct{ received atomic.Int64 }

func (s *sinkS3) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		n, _ := io.Copy(io.Discard, req.Body)
		s.received.Add(n)
		_ = req.Body.Close()
	}
	header := http.Header{}
	body := ""
	switch s3test.Operation(req) {
	case s3test.OpCreateMultipartUpload:
		body = `<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>u1</UploadId></InitiateMultipartUploadResult>`
	case s3test.OpUploadPart, s3test.OpPutObject:
		header.Set("ETag", `"0123456789abcdef0123456789abcdef"`)
	case s3test.OpCompleteMultipartUpload:
		body = `<CompleteMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><ETag>"x-2"</ETag></CompleteMultipartUploadResult>`
	case s3test.OpListObjectsV2:
		body = `<ListBucketResult><Name>b</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated></ListBucketResult>`
	}
	return &http.Response{StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: header, Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: req}, nil
}

// sinkFS is an s3:// file system that sends every request to transport, with
// parts of s3.MinPartSize and the given concurrency.
func sinkFS(t *testing.T, transport http.RoundTripper, concurrency int) vfs.FileSystem {
	o := s3.Options{Endpoint: "http://127.0.0.1:1", Region: "us-east-1", HTTPClient: &http.Client{Transport: transport},
		PartSize: s3.MinPartSize, Concurrency: concurrency,
		Credentials: credentials.NewStaticCredentialsProvider("k", "s", "")}
	fsys, err := s3.New(t.Context(), "sink-bucket", o)
	require.NoError(t, err)
	return fsys
}

// patternReader produces n bytes without holding them.
type patternReader struct{ left int64 }

func (r *patternReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), r.left)
	for i := range p[:n] {
		p[i] = byte(i)
	}
	r.left -= n
	return int(n), nil
}

// TestUploadMemoryIsBoundedByParts streams 16 MiB and 128 MiB files through
// Create: the bytes allocated do not grow with the file size (they are bounded
// by part size × concurrency), and every byte reaches the wire.
func TestUploadMemoryIsBoundedByParts(t *testing.T) {
	sink := &sinkS3{}
	fsys := sinkFS(t, sink, 2)
	allocated := func(size int64) uint64 {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := sink.received.Load()
		n, err := vfs.CopyFrom(t.Context(), fsys, vfs.MustPath(fmt.Sprintf("/f%d", size)), &patternReader{left: size}, vfs.Overwrite)
		require.NoError(t, err)
		require.Equal(t, size, n)
		runtime.ReadMemStats(&after)
		assert.GreaterOrEqual(t, sink.received.Load()-start, size, "every byte is sent")
		return after.TotalAlloc - before.TotalAlloc
	}
	small := allocated(16 << 20)
	large := allocated(128 << 20)
	t.Logf("allocated: %d MiB for 16 MiB, %d MiB for 128 MiB", small>>20, large>>20)
	// 8× the data may not cost more than a few more part buffers.
	assert.Less(t, large, small+4*uint64(s3.MinPartSize), "allocation grows with the file size: %d bytes for 16 MiB, %d for 128 MiB", small, large)
	// Concurrency+1 part buffers, the first buffer's doublings up to the part
	// size (less than two parts, garbage once the upload is multipart) and a
	// little for the requests.
	assert.Less(t, large, uint64(5*s3.MinPartSize+4<<20), "allocated for 128 MiB in 5 MiB parts, 2 at once")
}

// partCounter is a sinkS3 that also records the most UploadPart requests in
// flight at once and the part list of the CompleteMultipartUpload.
type partCounter struct {
	sinkS3
	inFlight, most atomic.Int64
	complete       atomic.Value // string: the Complete request's body
}

func (c *partCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	switch s3test.Operation(req) {
	case s3test.OpUploadPart:
		n := c.inFlight.Add(1)
		defer c.inFlight.Add(-1)
		for {
			m := c.most.Load()
			if n <= m || c.most.CompareAndSwap(m, n) {
				break
			}
		}
	case s3test.OpCompleteMultipartUpload:
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		c.complete.Store(req.Header.Get("If-None-Match") + string(body))
		req.Body = io.NopCloser(strings.NewReader(""))
	}
	return c.sinkS3.RoundTrip(req)
}

// TestUploadPartsInFlight streams 12 parts with Concurrency 3: never more than
// 3 parts are in flight, every byte is sent once, and the conditional Complete
// lists parts 1 to 12 in order.
func TestUploadPartsInFlight(t *testing.T) {
	sink := &partCounter{}
	fsys := sinkFS(t, sink, 3)
	const size = 12*s3.MinPartSize - 1000
	n, err := vfs.CopyFrom(t.Context(), fsys, vfs.MustPath("/parts"), &patternReader{left: size}, vfs.NoOverwrite)
	require.NoError(t, err)
	require.Equal(t, int64(size), n)
	assert.Equal(t, int64(size), sink.received.Load(), "every byte is sent once")
	assert.LessOrEqual(t, sink.most.Load(), int64(3), "parts in flight")
	assert.Positive(t, sink.most.Load())
	complete, _ := sink.complete.Load().(string)
	assert.True(t, strings.HasPrefix(complete, "*<"), "the Complete of a NoOverwrite upload carries If-None-Match: *")
	last := 0
	for i := 1; i <= 12; i++ {
		at := strings.Index(complete, fmt.Sprintf("<PartNumber>%d</PartNumber>", i))
		require.Greater(t, at, last, "part %d listed after part %d in %s", i, i-1, complete)
		last = at
	}
	assert.NotContains(t, complete, "<PartNumber>13</PartNumber>")
}

// TestUploadBuffersAreReusedAndReleased writes 64 files of 1 MiB one after the
// other, as a checkpoint writes its states: they share a few pooled buffers
// instead of allocating one each (less than half of what 64 fresh buffers
// take, even with -race, under which sync.Pool drops a quarter of what it is
// given: 3.5 MiB without, 18 MiB with), and once nothing writes, two garbage
// collections give the
// buffers back: an idle process holds none.
func TestUploadBuffersAreReusedAndReleased(t *testing.T) {
	sink := &sinkS3{}
	fsys := sinkFS(t, sink, 2)
	data := make([]byte, 1<<20)
	const files = 64
	runtime.GC()
	runtime.GC()
	var before, after, idle runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range files {
		require.NoError(t, vfs.WriteFile(t.Context(), fsys, vfs.MustPath(fmt.Sprintf("/state-%d", i)), data, vfs.NoOverwrite))
	}
	runtime.ReadMemStats(&after)
	assert.EqualValues(t, files<<20, sink.received.Load(), "every byte is sent")
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %.1f MiB for %d files of 1 MiB", float64(allocated)/(1<<20), files)
	assert.Less(t, allocated, uint64(files<<20/2), "buffers are reused across uploads")
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&idle)
	assert.Less(t, int64(idle.HeapAlloc)-int64(before.HeapAlloc), int64(1<<20), "heap held after the uploads, once idle")
}

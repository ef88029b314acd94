package s3_test

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// faulted returns two file systems on one fresh bucket of the shared SeaweedFS:
// one through a fault proxy (whose faults the test sets) and one direct, to
// check what the store really holds.
func faulted(t *testing.T, edit func(*s3.Options)) (faulty, direct *blobfs.FileSystem, p *faultproxy.Proxy, bucket string) {
	t.Helper()
	return faultedOn(t, s3test.SeaweedFS(t), edit)
}

// faultedOn is faulted on the server srv.
func faultedOn(t *testing.T, srv *s3test.Server, edit func(*s3.Options)) (faulty, direct *blobfs.FileSystem, p *faultproxy.Proxy, bucket string) {
	t.Helper()
	p, err := faultproxy.Start(srv.Endpoint)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	bucket = srv.NewBucket(t)
	o := optionsFor(srv, nil)
	o.Endpoint = p.URL()
	if edit != nil {
		edit(&o)
	}
	faulty, err = s3.New(t.Context(), bucket, o)
	require.NoError(t, err)
	direct, err = s3.New(t.Context(), bucket, optionsFor(srv, nil))
	require.NoError(t, err)
	return faulty, direct, p, bucket
}

// firstOf selects the first request of operation op to each path (and upload):
// the first attempt, not its retries.
func firstOf(op string) func(*http.Request) bool {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(r *http.Request) bool {
		if s3test.Operation(r) != op {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		k := r.URL.Path + "?" + r.URL.Query().Get("uploadId")
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
}

func requireContent(t *testing.T, fsys vfs.FileSystem, p vfs.Path, want []byte) {
	t.Helper()
	got, err := vfs.ReadFile(t.Context(), fsys, p)
	require.NoError(t, err, "read %s", p)
	require.True(t, bytes.Equal(want, got), "%s holds %d bytes, want the %d written", p, len(got), len(want))
}

// fileData is the content of file i of writeAll: size+i bytes of byte i.
func fileData(i, size int) []byte { return bytes.Repeat([]byte{byte(i)}, size+i) }

// writeAll writes n files dir/0 ... dir/n-1 (fileData) with NoOverwrite through
// fsys, each of which must succeed, and checks each through check.
func writeAll(t *testing.T, fsys, check vfs.FileSystem, dir string, n, size int) {
	t.Helper()
	for i := range n {
		path := vfs.MustPath(fmt.Sprintf("%s/%d", dir, i))
		require.NoError(t, vfs.WriteFile(t.Context(), fsys, path, fileData(i, size), vfs.NoOverwrite), "write %s", path)
		requireContent(t, check, path, fileData(i, size))
	}
}

func requireNoUploads(t *testing.T, bucket string) {
	t.Helper()
	ups, err := s3test.SeaweedFS(t).Client(nil).ListMultipartUploads(t.Context(), &awss3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
	require.NoError(t, err)
	require.Empty(t, ups.Uploads, "multipart uploads left behind")
}

// TestLostResponseOnConditionalPut loses the answer to the first attempt of
// every conditional PUT: the SDK retries, meets 412 (its own object) and the
// write must still succeed. Before, each such write failed with fs.ErrExist.
func TestLostResponseOnConditionalPut(t *testing.T) {
	faulty, direct, p, _ := faulted(t, nil)
	ctx := t.Context()
	p.Set(faultproxy.Faults{Drop: 1, Match: firstOf(s3test.OpPutObject)})
	const n = 10
	writeAll(t, faulty, direct, "/chk", n, 1000)
	assert.Equal(t, n, p.Counts().Dropped, "every first answer was lost")

	// Someone else's object is still refused, even when our answer is lost too.
	taken := vfs.MustPath("/taken")
	require.NoError(t, vfs.WriteFile(ctx, direct, taken, []byte("theirs"), vfs.NoOverwrite))
	err := vfs.WriteFile(ctx, faulty, taken, []byte("ours"), vfs.NoOverwrite)
	require.ErrorIs(t, err, fs.ErrExist)
	requireContent(t, direct, taken, []byte("theirs"))
	// Even with the same bytes: the object is not this write's.
	err = vfs.WriteFile(ctx, faulty, taken, []byte("theirs"), vfs.NoOverwrite)
	require.ErrorIs(t, err, fs.ErrExist, "identical bytes written by someone else are still someone else's")
}

// TestLostResponseOnMultipartComplete loses the answer to the first
// CompleteMultipartUpload of every upload: the upload did complete, and the
// write must succeed, in both write modes, with no upload left behind.
func TestLostResponseOnMultipartComplete(t *testing.T) {
	faulty, direct, p, bucket := faulted(t, func(o *s3.Options) { o.PartSize = s3.MinPartSize })
	ctx := t.Context()
	p.Set(faultproxy.Faults{Drop: 1, Match: firstOf(s3test.OpCompleteMultipartUpload)})
	for i, mode := range []vfs.WriteMode{vfs.NoOverwrite, vfs.Overwrite} {
		path := vfs.MustPath(fmt.Sprintf("/big-%d", i))
		data := bytes.Repeat([]byte{byte(10 + i)}, 2*s3.MinPartSize+123)
		require.NoError(t, vfs.WriteFile(ctx, faulty, path, data, mode), "multipart write (%v) whose completion answer was lost", mode)
		requireContent(t, direct, path, data)
	}
	assert.Equal(t, 2, p.Counts().Dropped)
	requireNoUploads(t, bucket)

	// A multipart NoOverwrite onto someone else's object still fails.
	taken := vfs.MustPath("/big-0")
	err := vfs.WriteFile(ctx, faulty, taken, bytes.Repeat([]byte{99}, 2*s3.MinPartSize+1), vfs.NoOverwrite)
	require.ErrorIs(t, err, fs.ErrExist)
	requireContent(t, direct, taken, bytes.Repeat([]byte{10}, 2*s3.MinPartSize+123))
	requireNoUploads(t, bucket)
}

// TestLostResponseOnMultipartCreate loses the answer to the first
// CreateMultipartUpload: the retry starts a second upload, and the first, whose
// id the client never learned, must not stay on the server.
func TestLostResponseOnMultipartCreate(t *testing.T) {
	faulty, direct, p, bucket := faulted(t, func(o *s3.Options) { o.PartSize = s3.MinPartSize })
	p.Set(faultproxy.Faults{Drop: 1, Match: firstOf(s3test.OpCreateMultipartUpload)})
	path := vfs.MustPath("/big")
	data := bytes.Repeat([]byte{3}, 2*s3.MinPartSize+9)
	require.NoError(t, vfs.WriteFile(t.Context(), faulty, path, data, vfs.NoOverwrite))
	assert.Equal(t, 1, p.Counts().Dropped)
	requireContent(t, direct, path, data)
	requireNoUploads(t, bucket)
}

// TestLostResponseOnRenameCopy loses the answer to the conditional copy of a
// rename: the retry meets its own copy, and the rename must succeed.
func TestLostResponseOnRenameCopy(t *testing.T) {
	faulty, direct, p, _ := faulted(t, nil)
	ctx := t.Context()
	src, dst := vfs.MustPath("/tmp/state"), vfs.MustPath("/final/state")
	data := []byte("renamed while the network lost the answer")
	require.NoError(t, vfs.WriteFile(ctx, direct, src, data, vfs.NoOverwrite))
	p.Set(faultproxy.Faults{Drop: 1, Match: firstOf(s3test.OpCopyObject)})
	require.NoError(t, faulty.Rename(ctx, src, dst))
	assert.Equal(t, 1, p.Counts().Dropped)
	requireContent(t, direct, dst, data)
	ok, err := vfs.Exists(ctx, direct, src)
	require.NoError(t, err)
	assert.False(t, ok, "the source is gone")
}

// TestRandomResponseLoss loses 5% of all answers at random (any operation):
// every NoOverwrite write succeeds and holds its bytes; no spurious failure.
func TestRandomResponseLoss(t *testing.T) {
	faulty, direct, p, _ := faulted(t, nil)
	ctx := t.Context()
	p.Set(faultproxy.Faults{Drop: 0.05, Seed: 5})
	const n = 60
	failures := 0
	for i := range n {
		path := vfs.MustPath(fmt.Sprintf("/r/%d", i))
		data := bytes.Repeat([]byte{byte(i)}, 100+i)
		if err := vfs.WriteFile(ctx, faulty, path, data, vfs.NoOverwrite); err != nil {
			failures++
			t.Errorf("write %d: %v", i, err)
			continue
		}
		requireContent(t, direct, path, data)
	}
	assert.Zero(t, failures, "spurious failures at 5%% response loss")
	t.Logf("proxy: %+v", p.Counts())
}

// TestSlowDownFifthOfRequests answers 20% of all requests with 503 SlowDown:
// with the default retry settings every write, multipart upload, rename and
// read completes, and the throttled attempts are counted.
func TestSlowDownFifthOfRequests(t *testing.T) {
	faulty, direct, p, bucket := faulted(t, func(o *s3.Options) { o.PartSize = s3.MinPartSize })
	ctx := t.Context()
	p.Set(faultproxy.Faults{SlowDown: 0.2, Seed: 3})
	const n = 40
	writeAll(t, faulty, faulty, "/s", n, 200)
	big := bytes.Repeat([]byte{7}, 2*s3.MinPartSize+5)
	require.NoError(t, vfs.WriteFile(ctx, faulty, vfs.MustPath("/big"), big, vfs.NoOverwrite))
	require.NoError(t, faulty.Rename(ctx, vfs.MustPath("/big"), vfs.MustPath("/moved/big")))
	requireContent(t, direct, vfs.MustPath("/moved/big"), big)
	require.NoError(t, faulty.Rename(ctx, vfs.MustPath("/s"), vfs.MustPath("/t")))
	for i := range n {
		requireContent(t, direct, vfs.MustPath(fmt.Sprintf("/t/%d", i)), fileData(i, 200))
	}
	requireNoUploads(t, bucket)
	c := p.Counts()
	t.Logf("proxy: %+v", c)
	assert.Greater(t, c.SlowDowns, n/5, "about a fifth of the requests were throttled")
	assert.Equal(t, c.Requests, c.Forwarded+c.SlowDowns, "every request was either throttled or served")
}

// TestCutBodiesNeverCorrupt cuts 30% of the GET answers in the middle of their
// body: a read either fails or returns the exact bytes, never a short or wrong
// file, and a stream read again after the error resumes at its offset.
func TestCutBodiesNeverCorrupt(t *testing.T) {
	faulty, direct, p, _ := faulted(t, nil)
	ctx := t.Context()
	const n = 20
	writeAll(t, direct, direct, "/g", n, 64<<10)
	p.Set(faultproxy.Faults{Cut: 0.3, Seed: 9, Match: func(r *http.Request) bool { return s3test.Operation(r) == s3test.OpGetObject }})
	failed := 0
	for i := range n {
		path := vfs.MustPath(fmt.Sprintf("/g/%d", i))
		got, err := vfs.ReadFile(ctx, faulty, path)
		if err != nil {
			failed++
			continue
		}
		require.True(t, bytes.Equal(fileData(i, 64<<10), got), "%s: a read that succeeded returned other bytes", path)

		in, err := faulty.Open(ctx, path)
		require.NoError(t, err)
		var all []byte
		buf := make([]byte, 8<<10)
		for range 1000 { // bounded: each cut costs one failed Read
			k, rerr := in.Read(buf)
			all = append(all, buf[:k]...)
			if rerr == io.EOF {
				break
			}
		}
		require.NoError(t, in.Close())
		require.True(t, bytes.Equal(fileData(i, 64<<10), all), "%s: reading on after errors gives the exact bytes", path)
	}
	c := p.Counts()
	t.Logf("cut %d of %d answers; %d whole-file reads failed", c.Cut, c.Requests, failed)
	assert.Positive(t, c.Cut)
}

package s3_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// sent is a request the proxy forwarded: its S3 operation and headers.
type sent struct {
	op     string
	header http.Header
}

// requestLog puts a proxy that logs every request in front of srv and
// returns the proxy's endpoint and the log.
func requestLog(t *testing.T, srv *s3test.Server) (string, func() []sent) {
	t.Helper()
	p, err := faultproxy.Start(srv.Endpoint)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	var mu sync.Mutex
	var log []sent
	p.Set(faultproxy.Faults{Match: func(r *http.Request) bool {
		mu.Lock()
		log = append(log, sent{op: s3test.Operation(r), header: r.Header.Clone()})
		mu.Unlock()
		return false
	}})
	return p.URL(), func() []sent {
		mu.Lock()
		defer mu.Unlock()
		l := log
		log = nil
		return l
	}
}

// urlScheme registers, for this test, a scheme served by blobfs.URLFactory
// from gocloud s3:// bucket URLs reaching endpoint with query (credentials
// from the environment), and returns the path of bucket's root on it. The
// URL asks for checksums where the SDK supports them (its default) unless
// query says request_checksum_calculation=when_required.
func urlScheme(t *testing.T, srv *s3test.Server, endpoint, bucket, query string, opts blobfs.Options) vfs.Path {
	t.Helper()
	srv.SetEnv(t)
	scheme := "s3url-" + strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	bucketURL := "s3://{authority}?endpoint=" + url.QueryEscape(endpoint) + "&region=" + srv.Region + "&use_path_style=true" + query
	vfs.RegisterTest(t, scheme, blobfs.URLFactory(bucketURL, opts))
	return vfs.MustPath(scheme + "://" + bucket + "/")
}

// ops lists the operations of a log.
func ops(log []sent) []string {
	var names []string
	for _, s := range log {
		names = append(names, s.op)
	}
	return names
}

// TestURLBucketUploadsItselfWithEncryption: a bucket opened from a gocloud
// s3:// URL with ssetype=AES256 (SeaweedFS) writes with the s3 backend's own
// uploader — a small file is one PutObject, a large one a multipart upload in
// parts of the Options' size — asks for the encryption on each, and
// SeaweedFS stores the objects encrypted; they read back byte for byte and
// list exactly.
func TestURLBucketUploadsItselfWithEncryption(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	ctx := t.Context()
	endpoint, log := requestLog(t, srv)
	bucket := srv.NewBucket(t)
	root := urlScheme(t, srv, endpoint, bucket, "&ssetype=AES256&request_checksum_calculation=when_required", blobfs.Options{PartSize: s3.MinPartSize, Concurrency: 2, DirectoryEntries: true, RefuseBackslash: true})
	fsys, err := vfs.Get(ctx, root.String())
	require.NoError(t, err)
	log()

	small := bytes.Repeat([]byte("s"), 100<<10)
	large := make([]byte, 2*s3.MinPartSize+12345)
	for i := range large {
		large[i] = byte(i * 7)
	}
	require.NoError(t, vfs.WriteFile(ctx, fsys, root.Join("d", "small"), small, vfs.NoOverwrite))
	smallLog := log()
	require.Equal(t, []string{s3test.OpPutObject}, ops(smallLog), "a small file is one PUT")
	assert.Equal(t, "AES256", smallLog[0].header.Get("X-Amz-Server-Side-Encryption"))
	assert.Equal(t, "*", smallLog[0].header.Get("If-None-Match"))

	out, err := fsys.Create(ctx, root.Join("d", "large"), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write(large)
	require.NoError(t, err)
	require.NoError(t, out.Close())
	largeLog := log()
	require.Equal(t, []string{s3test.OpCreateMultipartUpload, s3test.OpUploadPart, s3test.OpUploadPart, s3test.OpUploadPart,
		s3test.OpPutObject, s3test.OpCompleteMultipartUpload, s3test.OpDeleteObject},
		sortedParts(ops(largeLog)), "parts of Options.PartSize, and the upload's marker (s3.UploadMarkerPrefix) put and deleted")
	assert.Equal(t, "AES256", largeLog[0].header.Get("X-Amz-Server-Side-Encryption"))
	for _, s := range largeLog[1:4] {
		n, err := strconv.Atoi(s.header.Get("Content-Length"))
		require.NoError(t, err)
		assert.LessOrEqual(t, n, s3.MinPartSize)
	}

	client := srv.Client(nil)
	for name, want := range map[string][]byte{"small": small, "large": large} {
		got, err := vfs.ReadFile(ctx, fsys, root.Join("d", name))
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, got), "%s reads back byte for byte", name)
		head, err := client.HeadObject(ctx, &awss3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("d/" + name)})
		require.NoError(t, err)
		assert.Equal(t, "AES256", string(head.ServerSideEncryption), "SeaweedFS stored %s encrypted", name)
	}
	log()
	entries, err := fsys.List(ctx, root.Join("d"))
	require.NoError(t, err)
	require.Len(t, entries, 2)
	assert.Equal(t, "large", entries[0].Name())
	assert.Equal(t, int64(len(large)), entries[0].Size)
	assert.Equal(t, []string{s3test.OpListObjectsV2}, ops(log()))
}

// sortedParts returns names with the UploadParts (sent concurrently) moved
// together after the first entry, as they are in the order sent but for
// their interleaving.
func sortedParts(names []string) []string {
	var parts, rest []string
	for _, n := range names {
		if n == s3test.OpUploadPart {
			parts = append(parts, n)
		} else {
			rest = append(rest, n)
		}
	}
	if len(rest) == 0 {
		return parts
	}
	return append(append([]string{rest[0]}, parts...), rest[1:]...)
}

// TestURLBucketUploadMemoryIsBoundedByParts: streaming a 32 MiB file to a
// bucket opened from an s3:// URL, with 5 MiB parts one at a time,
// allocates less than the file's size in all (the own uploader's part
// buffers, reused), where the driver's writer and transfer manager allocated
// about 1.4 times the file's size.
func TestURLBucketUploadMemoryIsBoundedByParts(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	ctx := t.Context()
	root := urlScheme(t, srv, srv.Endpoint, srv.NewBucket(t), "", blobfs.Options{PartSize: s3.MinPartSize, Concurrency: 1})
	fsys, err := vfs.Get(ctx, root.String())
	require.NoError(t, err)
	data := make([]byte, 32<<20)
	for i := range data {
		data[i] = byte(i * 31)
	}
	require.NoError(t, vfs.WriteFile(ctx, fsys, root.Join("warm"), data[:1<<20], vfs.NoOverwrite))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := fsys.Create(ctx, root.Join("f"), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = io.CopyBuffer(out, struct{ io.Reader }{bytes.NewReader(data)}, make([]byte, 32<<10))
	require.NoError(t, err)
	require.NoError(t, out.Close())
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	assert.Less(t, allocated, uint64(len(data)), "allocated %d bytes to upload %d", allocated, len(data))
	got, err := vfs.ReadFile(ctx, fsys, root.Join("f"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got), "reads back byte for byte")
}

// TestURLBucketAsksForKMS: with ssetype=aws:kms and kmskeyid, every upload
// of the own uploader names the key, as the driver's did (gofakes3, which
// ignores it: the request is what is checked).
func TestURLBucketAsksForKMS(t *testing.T) {
	srv := s3test.GoFakeS3(t)
	ctx := t.Context()
	endpoint, log := requestLog(t, srv)
	root := urlScheme(t, srv, endpoint, srv.NewBucket(t), "&ssetype=aws:kms&kmskeyid=key-1", blobfs.Options{PartSize: s3.MinPartSize})
	fsys, err := vfs.Get(ctx, root.String())
	require.NoError(t, err)
	log()
	require.NoError(t, vfs.WriteFile(ctx, fsys, root.Join("small"), []byte("x"), vfs.NoOverwrite))
	require.NoError(t, vfs.WriteFile(ctx, fsys, root.Join("large"), make([]byte, s3.MinPartSize+1), vfs.NoOverwrite))
	var asked []string
	for _, s := range log() {
		if s.op == s3test.OpPutObject || s.op == s3test.OpCreateMultipartUpload {
			asked = append(asked, s.op+" "+s.header.Get("X-Amz-Server-Side-Encryption")+" "+s.header.Get("X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id"))
		}
	}
	assert.Equal(t, []string{"PutObject aws:kms key-1", "CreateMultipartUpload aws:kms key-1", "PutObject aws:kms key-1"}, asked,
		"the small file, the multipart upload and its marker (s3.UploadMarkerPrefix)")
}

// TestConformanceURLFactory runs the shared suite on a bucket opened from a
// gocloud s3:// URL with ssetype=AES256 (SeaweedFS): the own uploader and
// lister behind URLFactory meet the whole contract.
func TestConformanceURLFactory(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	bucket := srv.NewBucket(t)
	root := urlScheme(t, srv, srv.Endpoint, bucket, "&ssetype=AES256&request_checksum_calculation=when_required&response_checksum_validation=when_required",
		blobfs.Options{DirectoryEntries: true, RefuseBackslash: true})
	fsys, err := vfs.Get(t.Context(), root.String())
	require.NoError(t, err)
	conformance.Run(t, conformance.Harness{
		Registered: true,
		New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			dir := root.Join("conformance").Join(t.Name())
			t.Cleanup(func() { _ = fsys.Delete(context.Background(), dir, true) })
			return fsys, dir
		},
	})
}

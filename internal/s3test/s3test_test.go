package s3test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestVersionMatchesBuildScript(t *testing.T) {
	root, err := repoRoot()
	require.NoError(t, err)
	script, err := os.ReadFile(filepath.Join(root, "scripts", "build-seaweedfs.sh"))
	require.NoError(t, err)
	assert.Contains(t, string(script), SeaweedFSVersion, "scripts/build-seaweedfs.sh pins another version than s3test.SeaweedFSVersion")
}

func TestCachedWeedPathFollowsCacheDir(t *testing.T) {
	t.Setenv("VFSKIT_CACHE_DIR", "/x/cache")
	assert.Equal(t, "/x/cache/seaweedfs-"+SeaweedFSVersion+"/weed", CachedWeedPath())
}

func TestFindWeedHonoursEnv(t *testing.T) {
	t.Setenv(WeedBinEnv, filepath.Join(t.TempDir(), "missing-weed"))
	_, err := FindWeed(false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), WeedBinEnv)
}

func TestStartSeaweedFSReportsAServerThatExitsAtOnce(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake server is a shell script")
	}
	bin := filepath.Join(t.TempDir(), "weed")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\nexit 3\n"), 0o755))
	// Before: waitReady consumed the only exit notice, so stopping the dead
	// process then waited for it forever.
	_, err := StartSeaweedFS(t.Context(), SeaweedOptions{Bin: bin})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "weed exited before serving S3")
	assert.Contains(t, err.Error(), "exit status 3")
}

func TestFreePortsWithTwins(t *testing.T) {
	ports, err := freePortsWithTwins(5, 10000)
	require.NoError(t, err)
	require.Len(t, ports, 5)
	seen := map[int]bool{}
	for _, p := range ports {
		assert.False(t, seen[p], "port %d twice", p)
		seen[p] = true
		assert.LessOrEqual(t, p+10000, 65535)
	}
}

// exercise runs the same checks on any server: the counter classifies the
// operations and counts bytes, and a wrong secret is refused.
func exercise(t *testing.T, srv *Server) {
	ctx := t.Context()
	counter := NewCounter(nil)
	client := srv.Client(counter.HTTPClient())
	bucket := srv.NewBucket(t)
	body := bytes.Repeat([]byte("x"), 1000)
	_, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("a/b"), Body: bytes.NewReader(body)})
	require.NoError(t, err)
	_, err = client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("a/b")})
	require.NoError(t, err)
	out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("a/b"), Range: aws.String("bytes=0-99")})
	require.NoError(t, err)
	got, err := io.ReadAll(out.Body)
	require.NoError(t, err)
	require.NoError(t, out.Body.Close())
	assert.Equal(t, body[:100], got)
	_, err = client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	require.NoError(t, err)

	assert.Equal(t, map[string]int{OpPutObject: 1, OpHeadObject: 1, OpGetObject: 1, OpListObjectsV2: 1}, counter.Counts())
	assert.Equal(t, 4, counter.Total())
	assert.GreaterOrEqual(t, counter.BytesSent(), int64(1000))
	assert.GreaterOrEqual(t, counter.BytesReceived(), int64(100))
	counter.Reset()
	assert.Zero(t, counter.Total())

	wrong := *srv
	wrong.SecretAccessKey = "not-the-secret"
	wrong.AccessKeyID = "NOTAKEY"
	_, err = wrong.Client(nil).PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("x"), Body: strings.NewReader("x")})
	if srv.Name == "seaweedfs" { // gofakes3 does not check signatures
		var ae smithy.APIError
		require.True(t, errors.As(err, &ae), "want an API error, got %v", err)
		assert.Equal(t, "InvalidAccessKeyId", ae.ErrorCode())
	}
	assert.NotContains(t, srv.String(), srv.SecretAccessKey)
}

func TestGoFakeS3(t *testing.T) {
	exercise(t, GoFakeS3(t))
}

func TestSeaweedFS(t *testing.T) {
	srv := SeaweedFS(t)
	assert.True(t, strings.HasPrefix(srv.Endpoint, "http://127.0.0.1:"), srv.Endpoint)
	exercise(t, srv)
}

func TestOperationClassifiesRawRequests(t *testing.T) {
	cases := map[string]*http.Request{
		OpListObjectsV2:           mustReq(t, "GET", "/b?list-type=2&prefix=a", nil),
		OpGetObject:               mustReq(t, "GET", "/b/k", nil),
		OpHeadObject:              mustReq(t, "HEAD", "/b/k", nil),
		OpHeadBucket:              mustReq(t, "HEAD", "/b", nil),
		OpPutObject:               mustReq(t, "PUT", "/b/k", nil),
		OpCopyObject:              mustReq(t, "PUT", "/b/k", map[string]string{"X-Amz-Copy-Source": "b/j"}),
		OpUploadPart:              mustReq(t, "PUT", "/b/k?partNumber=1&uploadId=u", nil),
		OpDeleteObjects:           mustReq(t, "POST", "/b?delete", nil),
		OpCreateMultipartUpload:   mustReq(t, "POST", "/b/k?uploads", nil),
		OpCompleteMultipartUpload: mustReq(t, "POST", "/b/k?uploadId=u", nil),
		OpAbortMultipartUpload:    mustReq(t, "DELETE", "/b/k?uploadId=u", nil),
		OpDeleteObject:            mustReq(t, "DELETE", "/b/k", nil),
		OpListMultipartUploads:    mustReq(t, "GET", "/b?uploads", nil),
	}
	for want, req := range cases {
		assert.Equal(t, want, Operation(req), "%s %s", req.Method, req.URL)
	}
}

func mustReq(t *testing.T, method, target string, hdr map[string]string) *http.Request {
	req, err := http.NewRequest(method, "http://127.0.0.1:1"+target, nil)
	require.NoError(t, err)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return req
}

func TestBreakerFailsSelectedRequests(t *testing.T) {
	srv := GoFakeS3(t)
	br := NewBreaker(nil, func(op string, seen int) bool { return op == OpPutObject && seen >= 1 })
	client := srv.Client(br.HTTPClient())
	ctx := t.Context()
	_, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(srv.Bucket), Key: aws.String("k1"), Body: strings.NewReader("1")})
	require.NoError(t, err)
	_, err = client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(srv.Bucket), Key: aws.String("k2"), Body: strings.NewReader("2")})
	require.ErrorIs(t, err, ErrBroken)
	assert.GreaterOrEqual(t, br.Failed(), 1)
}

func TestKillAndRestartKeepData(t *testing.T) {
	srv := PrivateSeaweedFS(t)
	ctx := t.Context()
	client := srv.Client(nil)
	put := func(key, body string) error {
		_, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(srv.Bucket), Key: aws.String(key), Body: strings.NewReader(body)})
		return err
	}
	require.NoError(t, put("before", "kept across the kill"))
	require.NoError(t, srv.Kill())
	short, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, err := srv.Client(nil).HeadBucket(short, &s3.HeadBucketInput{Bucket: aws.String(srv.Bucket)})
	cancel()
	require.Error(t, err, "a killed server answers nothing")
	require.NoError(t, srv.Kill(), "killing a dead server is harmless")
	require.NoError(t, srv.Restart(ctx))
	require.ErrorContains(t, srv.Restart(ctx), "still running", "a running server cannot be started twice")
	out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(srv.Bucket), Key: aws.String("before")})
	require.NoError(t, err, "the object written before the kill")
	got, err := io.ReadAll(out.Body)
	require.NoError(t, err)
	require.NoError(t, out.Body.Close())
	assert.Equal(t, "kept across the kill", string(got))
	require.NoError(t, put("after", "x"), "the restarted server takes writes at the same endpoint")
}

func TestOnlySeaweedFSCanBeKilled(t *testing.T) {
	srv := GoFakeS3(t)
	require.ErrorContains(t, srv.Kill(), "cannot be killed")
	require.ErrorContains(t, srv.Restart(t.Context()), "cannot be restarted")
}

// TestSeaweedFSServesManyBuckets: every test makes buckets of its own, and a
// package's tests share one server: writes to the 100th bucket still work.
func TestSeaweedFSServesManyBuckets(t *testing.T) {
	srv := SeaweedFS(t)
	client := srv.Client(nil)
	for i := range 100 {
		bucket := srv.NewBucket(t)
		_, err := client.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("k"), Body: strings.NewReader("x")})
		require.NoError(t, err, "a write to bucket %d of 100", i+1)
	}
}

// TestWeedArgsVolumeSizeLimit checks that SeaweedOptions.VolumeSizeLimitMB
// reaches weed mini's flag, and that mini keeps its own sizing without it.
func TestWeedArgsVolumeSizeLimit(t *testing.T) {
	p := &weedProcess{dir: t.TempDir(), ports: []int{1, 2, 3, 4, 5}, srv: &Server{Bucket: "b"}}
	for _, a := range p.args() {
		assert.False(t, strings.HasPrefix(a, "-master.volumeSizeLimitMB"), a)
	}
	p.volumeMB = 3072
	assert.Contains(t, p.args(), "-master.volumeSizeLimitMB=3072")
	assert.Equal(t, "mini", p.args()[0])
}

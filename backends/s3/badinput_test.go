package s3_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

func TestMissingBucketErrorNamesBucketAndEndpoint(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			srv := s.start(t)
			ctx := t.Context()
			fsys, err := s3.New(ctx, "no-such-bucket-here", optionsFor(srv, nil))
			require.NoError(t, err, "opening sends no request")
			_, err = fsys.Stat(ctx, vfs.MustPath("/a"))
			requireMissingBucket(t, err, srv)
			err = vfs.WriteFile(ctx, fsys, vfs.MustPath("/a"), []byte("x"), vfs.Overwrite)
			requireMissingBucket(t, err, srv)
			_, err = fsys.List(ctx, vfs.MustPath("/"))
			requireMissingBucket(t, err, srv)
		})
	}
}

func requireMissingBucket(t *testing.T, err error, srv *s3test.Server) {
	t.Helper()
	require.Error(t, err)
	var bnf *s3.BucketNotFoundError
	require.ErrorAs(t, err, &bnf, "got %v", err)
	assert.Contains(t, err.Error(), `"no-such-bucket-here"`)
	assert.Contains(t, err.Error(), srv.Endpoint)
	assert.NotErrorIs(t, err, fs.ErrNotExist, "a missing bucket is a configuration error, not a missing file")
}

func TestWrongCredentialsNeverShowTheSecret(t *testing.T) {
	srv := s3test.SeaweedFS(t) // gofakes3 does not check signatures
	ctx := t.Context()
	const secret = "S3cr3t-Value-That-Must-Not-Leak-9f8e7d"
	o := optionsFor(srv, nil)
	o.Credentials = credentials.NewStaticCredentialsProvider("AKIAWRONGKEY0000", secret, "")
	bucket := srv.NewBucket(t)
	fsys, err := s3.New(ctx, bucket, o)
	require.NoError(t, err)

	var errs []error
	_, err = fsys.Stat(ctx, vfs.MustPath("/a"))
	errs = append(errs, err)
	_, err = fsys.List(ctx, vfs.MustPath("/"))
	errs = append(errs, err)
	errs = append(errs, vfs.WriteFile(ctx, fsys, vfs.MustPath("/a"), []byte("x"), vfs.Overwrite))
	_, err = vfs.ReadFile(ctx, fsys, vfs.MustPath("/a"))
	errs = append(errs, err)
	for i, err := range errs {
		require.Error(t, err, "operation %d", i)
		assert.NotContains(t, err.Error(), secret, "operation %d", i)
		assert.NotContains(t, fmt.Sprintf("%+v %#v", err, err), secret, "operation %d", i)
	}
	assert.Contains(t, errs[1].Error(), "InvalidAccessKeyId", "the listing error says what is wrong")
	assert.Contains(t, errs[1].Error(), "credentials refused")
	assert.Contains(t, errs[1].Error(), srv.Endpoint)
	for _, s := range []string{o.String(), fmt.Sprintf("%v", o), fmt.Sprintf("%+v", o), fmt.Sprintf("%#v", o), fmt.Sprint(fsys), fsys.URI().String()} {
		assert.NotContains(t, s, secret)
	}
}

func TestInvalidBucketName(t *testing.T) {
	ctx := t.Context()
	for _, name := range []string{"Upper_Case", "ab", strings.Repeat("a", 64), "-dash-first", "two..dots", "192.168.1.1"} {
		_, err := vfs.Get(ctx, "s3://"+name+"/x")
		require.Error(t, err, "bucket %q", name)
		assert.ErrorIs(t, err, fs.ErrInvalid, "bucket %q", name)
		assert.Contains(t, err.Error(), name, "the error names the bucket")
	}
	_, err := s3.New(ctx, "Bad!", s3.Options{})
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), `"Bad!"`)
}

func TestNoBucket(t *testing.T) {
	for _, uri := range []string{"s3:///x", "s3a:///", "s3p:///a/b"} {
		_, err := vfs.Get(t.Context(), uri)
		require.Error(t, err, uri)
		assert.ErrorIs(t, err, fs.ErrInvalid, uri)
		assert.Contains(t, err.Error(), "no bucket", uri)
	}
}

func TestBadQueryParameters(t *testing.T) {
	ctx := t.Context()
	_, err := vfs.Get(ctx, "s3://some-bucket-q1/?use_path_style=maybe")
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "maybe")
	_, err = vfs.Get(ctx, "s3://some-bucket-q2/?colour=blue")
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "colour")
	_, err = vfs.Get(ctx, "s3://some-bucket-q3/?endpoint=not-a-url")
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "not-a-url")
	_, err = s3.New(ctx, "some-bucket", s3.Options{PartSize: 1 << 20})
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "5 MiB")
}

func TestKeyLongerThanS3Allows(t *testing.T) {
	srv := s3test.GoFakeS3(t)
	c := s3test.NewCounter(nil)
	fsys, _ := newFS(t, srv, optionsFor(srv, c))
	long := vfs.MustPath("/" + strings.Repeat("k", s3.MaxKeyLength+1))
	_, err := fsys.Create(t.Context(), long, vfs.Overwrite)
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "1025 bytes")
	assert.Contains(t, err.Error(), "1024")
	_, err = fsys.Stat(t.Context(), long)
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Zero(t, c.Total(), "refused before any request")
	ok := vfs.MustPath("/" + strings.Repeat("k", s3.MaxKeyLength))
	require.NoError(t, vfs.WriteFile(t.Context(), fsys, ok, []byte("x"), vfs.NoOverwrite), "1,024 bytes is allowed")
}

// TestServerGoneMidUpload breaks every UploadPart after the first (as a server that
// went away would): the write fails, nothing is published and the multipart
// upload is aborted.
func TestServerGoneMidUpload(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			srv := s.start(t)
			ctx := t.Context()
			br := s3test.NewBreaker(nil, func(op string, seen int) bool { return op == s3test.OpUploadPart && seen >= 1 })
			o := optionsFor(srv, nil)
			o.HTTPClient = br.HTTPClient()
			o.PartSize = s3.MinPartSize
			o.Concurrency = 1
			o.MaxAttempts = 2
			fsys, bucket := newFS(t, srv, o)
			p := vfs.MustPath("/gone/file")
			_, err := vfs.CopyFrom(ctx, fsys, p, bytes.NewReader(make([]byte, 4*s3.MinPartSize)), vfs.Overwrite)
			require.Error(t, err)
			assert.ErrorIs(t, err, s3test.ErrBroken)
			assert.Positive(t, br.Failed())
			requireNothingLeft(t, srv, bucket, "gone/file")
		})
	}
}

// TestCancelledMidUploadAbortsMultipart cancels the Create context after two
// parts: nothing is published, and the multipart upload is aborted even though
// the context it ran on is gone.
func TestCancelledMidUploadAbortsMultipart(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			srv := s.start(t)
			o := optionsFor(srv, nil)
			o.PartSize = s3.MinPartSize
			o.Concurrency = 1
			fsys, bucket := newFS(t, srv, o)
			ctx, cancel := context.WithCancel(t.Context())
			out, err := fsys.Create(ctx, vfs.MustPath("/cancelled"), vfs.Overwrite)
			require.NoError(t, err)
			chunk := make([]byte, s3.MinPartSize)
			for range 3 {
				_, err := out.Write(chunk)
				require.NoError(t, err)
			}
			cancel()
			require.ErrorIs(t, out.Close(), context.Canceled)
			requireNothingLeft(t, srv, bucket, "cancelled")
		})
	}
}

// requireNothingLeft checks with the plain SDK that key does not exist and no
// multipart upload is left in the bucket.
func requireNothingLeft(t *testing.T, srv *s3test.Server, bucket, key string) {
	t.Helper()
	ctx := context.Background()
	client := srv.Client(nil)
	_, err := client.HeadObject(ctx, &awss3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	require.Error(t, err, "%s must not be published", key)
	ups, err := client.ListMultipartUploads(ctx, &awss3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
	require.NoError(t, err)
	assert.Empty(t, ups.Uploads, "multipart uploads left behind")
	var nf interface{ ErrorCode() string }
	if errors.As(err, &nf) {
		t.Logf("HEAD %s: %s", key, nf.ErrorCode())
	}
}

func TestCredentialsInURIAreRefusedWithoutEchoingThem(t *testing.T) {
	_, err := vfs.Get(t.Context(), "s3://AKIAEXAMPLE:TopSecretInURI@some-bucket/x")
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrInvalid)
	assert.NotContains(t, err.Error(), "TopSecretInURI")
}

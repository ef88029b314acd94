package s3_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestCleanTempRemovesKilledUploads leaves, on SeaweedFS, the multipart upload
// of a writer whose abort never reached the server (as a killed process
// does), and a multipart upload another tool started: vfs.CleanTemp with an
// age the upload has not reached removes nothing; with an age it has reached
// it aborts vfskit's upload and deletes its marker, and leaves the other
// tool's upload alone.
func TestCleanTempRemovesKilledUploads(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	ctx := t.Context()
	o := optionsFor(srv, nil)
	o.PartSize = s3.MinPartSize
	// A writer whose aborts are lost: what a killed process leaves.
	o.HTTPClient = s3test.NewBreaker(http.DefaultTransport, func(op string, _ int) bool {
		return op == s3test.OpAbortMultipartUpload
	}).HTTPClient()
	fsys, bucket := newFS(t, srv, o)
	client := srv.Client(nil)

	out, err := fsys.Create(ctx, vfs.MustPath("/dir/big.bin"), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write(bytes.Repeat([]byte("x"), 2*s3.MinPartSize+1))
	require.NoError(t, err)
	require.NoError(t, out.(vfs.Aborter).Abort())

	foreign, err := client.CreateMultipartUpload(ctx, &awss3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("dir/other.bin")})
	require.NoError(t, err)

	uploads := func() map[string]bool { return srv.MultipartUploads(t, bucket) }
	require.Equal(t, map[string]bool{"dir/big.bin": true, "dir/other.bin": true}, uploads(), "the killed writer's upload is left")

	direct, err := s3.New(ctx, bucket, optionsFor(srv, nil))
	require.NoError(t, err)
	dir := vfs.MustPath("/dir")
	found, err := vfs.CleanTemp(ctx, direct, dir, time.Hour)
	require.NoError(t, err)
	assert.Empty(t, found, "an upload younger than the age stays")
	assert.Len(t, uploads(), 2)

	time.Sleep(1100 * time.Millisecond) // past the listing's one-second precision
	found, err = vfs.FindTemp(ctx, direct, dir, 0)
	require.NoError(t, err)
	require.Len(t, found, 1, "dry run")
	assert.Len(t, uploads(), 2, "a dry run removes nothing")

	found, err = vfs.CleanTemp(ctx, direct, dir, 0)
	require.NoError(t, err)
	require.Len(t, found, 1)
	assert.Contains(t, found[0].Name(), s3.UploadMarkerPrefix, "the marker names the upload")
	assert.Equal(t, map[string]bool{"dir/other.bin": true}, uploads(), "only vfskit's upload was aborted")
	entries, err := direct.List(ctx, dir)
	if err == nil {
		assert.Empty(t, entries, "the marker is gone")
	}
	_, err = client.AbortMultipartUpload(context.Background(), &awss3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("dir/other.bin"), UploadId: foreign.UploadId})
	require.NoError(t, err)
}

package s3_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
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

// TestListingsHideUploadMarkers: while a multipart upload runs on SeaweedFS,
// its marker object sits next to the target, and neither List nor vfs.Walk
// (what cp -r and mv list with) shows it; a user's files whose names start
// as a marker's does (one with a check that does not match) are listed.
func TestListingsHideUploadMarkers(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	ctx := t.Context()
	o := optionsFor(srv, nil)
	o.PartSize = s3.MinPartSize
	fsys, bucket := newFS(t, srv, o)
	client := srv.Client(nil)
	users := []string{s3.UploadMarkerPrefix + strings.Repeat("0", 40), s3.UploadMarkerPrefix + "notes.txt"}
	for _, n := range users {
		require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("/dir/"+n), []byte("a user's file"), vfs.NoOverwrite))
	}

	out, err := fsys.Create(ctx, vfs.MustPath("/dir/big.bin"), vfs.NoOverwrite)
	require.NoError(t, err)
	t.Cleanup(func() { _ = out.(vfs.Aborter).Abort() })
	_, err = out.Write(bytes.Repeat([]byte("x"), 2*s3.MinPartSize+1))
	require.NoError(t, err)
	listed, err := client.ListObjectsV2(ctx, &awss3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String("dir/")})
	require.NoError(t, err)
	var markers []string
	for _, o := range listed.Contents {
		if name := strings.TrimPrefix(aws.ToString(o.Key), "dir/"); s3.IsUploadMarker(name) {
			markers = append(markers, name)
		}
	}
	require.Len(t, markers, 1, "the running upload's marker is in the bucket")

	entries, err := fsys.List(ctx, vfs.MustPath("/dir"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, users, names, "List shows the user's files and not the marker")
	var walked []string
	require.NoError(t, vfs.Walk(ctx, fsys, vfs.MustPath("/dir"), func(st vfs.FileStatus, err error) error {
		if err == nil && !st.IsDir {
			walked = append(walked, st.Name())
		}
		return err
	}))
	assert.Equal(t, users, walked, "a walk (cp -r, mv) does not meet the marker")

	require.NoError(t, out.Close())
	entries, err = fsys.List(ctx, vfs.MustPath("/dir"))
	require.NoError(t, err)
	assert.Len(t, entries, 3, "the file, once published, and the user's files")
}

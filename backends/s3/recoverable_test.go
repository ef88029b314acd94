package s3_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/rwtest"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// uploadsUnder lists the multipart uploads of bucket under dir's key.
func uploadsUnder(t *testing.T, srv *s3test.Server, bucket string, dir vfs.Path) []string {
	t.Helper()
	out, err := srv.Client(nil).ListMultipartUploads(t.Context(), &awss3.ListMultipartUploadsInput{
		Bucket: aws.String(bucket), Prefix: aws.String(strings.TrimPrefix(dir.Path(), "/") + "/")})
	require.NoError(t, err)
	var keys []string
	for _, u := range out.Uploads {
		keys = append(keys, aws.ToString(u.Key)+" "+aws.ToString(u.UploadId))
	}
	return keys
}

// TestRecoverablePartsBetweenPersists writes three intervals of 12 MiB
// through a recoverable stream with parts of 8 MiB and Concurrency 5 on
// SeaweedFS. The first interval is one part and a tail of 4 MiB; after it the
// stream cuts its parts so that each interval's bytes upload on as many
// connections as fit at 5 MiB a part (Persist waits for them all): 16 MiB
// (the tail and 12 MiB) in 3 parts without a tail, then 12 MiB in 2. The file
// commits byte for byte.
func TestRecoverablePartsBetweenPersists(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	ctx := t.Context()
	c := s3test.NewCounter(nil)
	o := optionsFor(srv, c)
	o.PartSize, o.Concurrency = 8<<20, 5
	fsys, _ := newFS(t, srv, o)
	w, err := vfs.NewRecoverableWriter(fsys)
	require.NoError(t, err)
	p := vfs.MustPath("/parts/f")
	out, err := w.Open(ctx, p)
	require.NoError(t, err)
	var want bytes.Buffer
	write := func(mib int) {
		for range mib {
			chunk := rwtest.Data(want.Len(), 1<<20)
			want.Write(chunk)
			_, err := out.Write(chunk)
			require.NoError(t, err)
		}
	}
	write(12)
	_, err = out.Persist(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, c.Counts()[s3test.OpUploadPart], "one part of 8 MiB")
	assert.Equal(t, 1, c.Counts()[s3test.OpPutObject], "and a tail of 4 MiB")
	c.Reset()
	write(12)
	_, err = out.Persist(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, c.Counts()[s3test.OpUploadPart], "16 MiB in three parts")
	assert.Zero(t, c.Counts()[s3test.OpPutObject], "no tail")
	c.Reset()
	write(12)
	com, err := out.CloseForCommit(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, c.Counts()[s3test.OpUploadPart], "12 MiB in two parts")
	require.NoError(t, com.Commit(ctx))
	rwtest.RequireContent(t, fsys, p, want.Bytes())
	rwtest.RequireOnly(t, fsys, p.Parent(), "f")
}

// TestRecoverableTailsAreHiddenFromListings: the tail objects a persisted
// stream keeps on SeaweedFS are not listed; a user's look-alike file is.
func TestRecoverableTailsAreHiddenFromListings(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	fsys, bucket := newFS(t, srv, optionsFor(srv, nil))
	client := srv.Client(nil)
	rwtest.RequireTempsHidden(t, fsys, vfs.MustPath("/d"), rwtest.LookAlike, blobfs.IsRecoverableTemp, func() []string {
		listed, err := client.ListObjectsV2(t.Context(), &awss3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String("d/")})
		require.NoError(t, err)
		var keys []string
		for _, o := range listed.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
		return keys
	})
}

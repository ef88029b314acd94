package s3_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/internal/rwtest"
	"github.com/vfskit/vfskit/backends/s3"
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

// TestRecoverable runs the recoverable writer's checks on every test server
// with the smallest part size, so that streams have parts, tails and a last
// part; no multipart upload may be left.
func TestRecoverable(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			srv := s.start(t)
			o := optionsFor(srv, nil)
			o.PartSize = s3.MinPartSize
			fsys, bucket := newFS(t, srv, o)
			other, _ := newFS(t, srv, o)
			rwtest.Run(t, fsys, vfs.MustPath("s3://"+bucket+"/rw"), rwtest.Options{
				Piece: s3.MinPartSize + 1000,
				Other: other,
				Leftovers: func(t *testing.T, dir vfs.Path) []string {
					return uploadsUnder(t, srv, bucket, dir)
				},
			})
		})
	}
}

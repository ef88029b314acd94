package s3_test

import (
	"bytes"
	"io/fs"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestNoOverwriteMultipart checks that NoOverwrite holds for a file large enough
// for a multipart upload: the condition rides on CompleteMultipartUpload.
func TestNoOverwriteMultipart(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			if s.name == "GoFakeS3" {
				t.Skip("gofakes3 v1.2.0 ignores If-None-Match on CompleteMultipartUpload")
			}
			srv := s.start(t)
			c := s3test.NewCounter(nil)
			o := optionsFor(srv, c)
			o.PartSize = s3.MinPartSize
			fsys, bucket := newFS(t, srv, o)
			ctx := t.Context()
			p := vfs.MustPath("/big")
			first := bytes.Repeat([]byte{1}, 2*s3.MinPartSize+1)
			require.NoError(t, vfs.WriteFile(ctx, fsys, p, first, vfs.NoOverwrite))
			assert.Equal(t, 1, c.Count(s3test.OpCompleteMultipartUpload))
			assert.Equal(t, 1, c.Conditional(s3test.OpCompleteMultipartUpload), "the completion carries If-None-Match: *")
			err := vfs.WriteFile(ctx, fsys, p, bytes.Repeat([]byte{2}, 2*s3.MinPartSize+1), vfs.NoOverwrite)
			require.ErrorIs(t, err, fs.ErrExist)
			got, err := vfs.ReadFile(ctx, fsys, p)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(first, got), "the first file is intact")
			ups, err := srv.Client(nil).ListMultipartUploads(ctx, &awss3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
			require.NoError(t, err)
			assert.Empty(t, ups.Uploads, "the refused upload was aborted")
		})
	}
}

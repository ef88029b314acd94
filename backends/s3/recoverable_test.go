package s3_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/require"

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

package demo

import (
	"testing"

	"github.com/vfskit/vfskit/internal/s3test"

	_ "github.com/vfskit/vfskit/backends/s3"
)

// useS3 points the AWS default chain (and so s3://) at srv for this test and
// returns a fresh bucket.
func useS3(t *testing.T, srv *s3test.Server) string {
	srv.SetEnv(t)
	return srv.NewBucket(t)
}

package s3_test

import (
	"context"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
)

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

// servers are the S3 servers every server-facing test runs on: SeaweedFS (the
// real one; skipped or failed per s3test's policy) and gofakes3 (in process).
var servers = []struct {
	name  string
	start func(testing.TB) *s3test.Server
}{
	{"SeaweedFS", s3test.SeaweedFS},
	{"GoFakeS3", s3test.GoFakeS3},
}

// optionsFor returns Options that reach srv, sending through httpClient's
// transport when counter is not nil.
func optionsFor(srv *s3test.Server, counter *s3test.Counter) s3.Options {
	o := s3.Options{
		Endpoint:        srv.Endpoint,
		Region:          srv.Region,
		Credentials:     credentials.NewStaticCredentialsProvider(srv.AccessKeyID, srv.SecretAccessKey, ""),
		RetryMaxBackoff: 100e6, // 100 ms: keep retries fast in tests
	}
	if counter != nil {
		o.HTTPClient = counter.HTTPClient()
	}
	return o
}

// newFS returns an unregistered file system on a fresh bucket of srv.
func newFS(t testing.TB, srv *s3test.Server, o s3.Options) (*blobfs.FileSystem, string) {
	t.Helper()
	bucket := srv.NewBucket(t)
	fsys, err := s3.New(context.Background(), bucket, o)
	require.NoError(t, err)
	return fsys, bucket
}

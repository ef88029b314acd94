package s3_test

import (
	"testing"

	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

func TestPathStyle(t *testing.T) {
	cases := []struct {
		endpoint string
		env      string
		force    bool
		want     bool
	}{
		{"http://127.0.0.1:8333", "", false, true},
		{"http://[::1]:8333", "", false, true},
		{"http://localhost:9000", "", false, true},
		{"https://s3.example.com", "", false, false},
		{"https://s3.example.com", "true", false, true},
		{"https://s3.example.com", "", true, true},
		{"", "", false, false},
	}
	for _, c := range cases {
		t.Setenv(s3.PathStyleEnv, c.env)
		t.Setenv("AWS_ENDPOINT_URL_S3", "")
		t.Setenv("AWS_ENDPOINT_URL", "")
		fsys, err := s3.New(t.Context(), "path-style-bucket", s3.Options{Endpoint: c.endpoint, Region: "us-east-1", PathStyle: c.force})
		require.NoError(t, err)
		var client *awss3.Client
		require.True(t, fsys.Bucket().As(&client))
		assert.Equal(t, c.want, client.Options().UsePathStyle, "endpoint %q, %s=%q, PathStyle %t", c.endpoint, s3.PathStyleEnv, c.env, c.force)
	}
}

// TestCopyIsServerSide checks that vfs.Copy within one bucket is a CopyObject:
// no byte passes through the client.
func TestCopyIsServerSide(t *testing.T) {
	srv := s3test.GoFakeS3(t)
	c := s3test.NewCounter(nil)
	fsys, _ := newFS(t, srv, optionsFor(srv, c))
	ctx := t.Context()
	data := make([]byte, 1<<20)
	require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("/src"), data, vfs.NoOverwrite))
	c.Reset()
	n, err := vfs.Copy(ctx, fsys, vfs.MustPath("/dst"), fsys, vfs.MustPath("/src"))
	require.NoError(t, err)
	assert.Equal(t, int64(len(data)), n)
	assert.Equal(t, map[string]int{s3test.OpHeadObject: 1, s3test.OpCopyObject: 1}, c.Counts(), "HEAD source, conditional CopyObject")
	assert.Equal(t, 1, c.Conditional(s3test.OpCopyObject), "NoOverwrite is If-None-Match: * on the copy, not a HEAD of the destination")
	assert.Less(t, c.BytesReceived()+c.BytesSent(), int64(64<<10), "the bytes stay on the server")
}

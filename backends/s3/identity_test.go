package s3_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/vfs"
)

// TestIdentityOneBucketOneEndpoint: s3a:// and s3p:// of a bucket served at
// s3://'s endpoint are that bucket's s3:// objects; at another endpoint they
// are another store. No request is sent (the endpoints listen nowhere).
func TestIdentityOneBucketOneEndpoint(t *testing.T) {
	ctx := t.Context()
	opts := func(endpoint string) s3.Options {
		return s3.Options{Endpoint: endpoint, Region: "us-east-1", PathStyle: true,
			Credentials: credentials.NewStaticCredentialsProvider("AKIAEXAMPLE", "secret", "")}
	}
	r := vfs.NewRegistry()
	require.NoError(t, r.Register("s3", s3.Factory(opts("http://127.0.0.1:1"))))
	require.NoError(t, r.Register("s3a", s3.Factory(opts("http://127.0.0.1:1"))))
	require.NoError(t, r.Register("s3p", s3.Factory(opts("http://127.0.0.1:2"))))
	for _, s := range s3.Schemes {
		require.NoError(t, r.RegisterIdentity(s, s3.Identity))
	}
	same := func(a, b string) bool {
		t.Helper()
		ok, err := r.SameLocation(ctx, vfs.MustPath(a), vfs.MustPath(b))
		require.NoError(t, err)
		return ok
	}
	assert.True(t, same("s3a://bucket/ck/job/shared/x", "s3://bucket/ck/job/shared/x"))
	assert.False(t, same("s3a://bucket/ck/job/shared/x", "s3://other/ck/job/shared/x"))
	assert.False(t, same("s3a://bucket/ck/job/shared/x", "s3://bucket/ck/job/shared/y"))
	assert.False(t, same("s3p://bucket/x", "s3://bucket/x"), "another endpoint is another store")
	k, err := r.Canonical(ctx, vfs.MustPath("s3a://bucket/k"))
	require.NoError(t, err)
	assert.Equal(t, vfs.MustPath("s3://bucket/k"), k)

	// The default registry serves the three schemes with one configuration.
	ok, err := vfs.SameLocation(ctx, vfs.MustPath("s3p://bucket/k"), vfs.MustPath("s3://bucket/k"))
	if err == nil {
		assert.True(t, ok)
	}
}

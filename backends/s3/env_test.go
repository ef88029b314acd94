package s3_test

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestDefaultChainFromEnvironment configures everything the way `make s3-server`
// tells users to: AWS_ENDPOINT_URL_S3, the AWS_* credentials and
// VFSKIT_S3_PATH_STYLE, with no Options and no query parameters.
func TestDefaultChainFromEnvironment(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	srv.SetEnv(t)
	bucket := srv.NewBucket(t)
	ctx := t.Context()
	for _, scheme := range s3.Schemes {
		p := vfs.MustPath(scheme + "://" + bucket + "/env/" + scheme + ".txt")
		fsys, err := p.FileSystem(ctx)
		require.NoError(t, err, scheme)
		assert.Equal(t, scheme+"://"+bucket+"/", fsys.URI().String())
		assert.Equal(t, vfs.KindObjectStore, fsys.Kind())
		assert.True(t, fsys.IsDistributed())
		require.NoError(t, vfs.WriteFile(ctx, fsys, p, []byte(scheme), vfs.NoOverwrite), scheme)
	}
	// The three schemes name the same objects.
	fsys, err := vfs.Get(ctx, "s3://"+bucket+"/")
	require.NoError(t, err)
	got, err := vfs.ReadFile(ctx, fsys, vfs.MustPath("/env/s3a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "s3a", string(got))
}

func TestSetOptionsAppliesToNewBuckets(t *testing.T) {
	srv := s3test.GoFakeS3(t)
	before := s3.CurrentOptions()
	t.Cleanup(func() { s3.SetOptions(before) })
	o := optionsFor(srv, nil)
	o.PathStyle = true
	s3.SetOptions(o)
	assert.Equal(t, srv.Endpoint, s3.CurrentOptions().Endpoint)
	fsys, err := vfs.Get(t.Context(), "s3://"+srv.Bucket+"/")
	require.NoError(t, err)
	p := vfs.MustPath("/set-options")
	require.NoError(t, vfs.WriteFile(t.Context(), fsys, p, []byte("ok"), vfs.NoOverwrite))
	ok, err := vfs.Exists(t.Context(), fsys, p)
	require.NoError(t, err)
	assert.True(t, ok)
}

// TestProfileFromSharedConfig reads credentials and region from a profile of a
// shared credentials file, chosen with the profile query parameter.
func TestProfileFromSharedConfig(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	dir := t.TempDir()
	creds := "[other]\naws_access_key_id = " + srv.AccessKeyID + "\naws_secret_access_key = " + srv.SecretAccessKey + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "credentials"), []byte(creds), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config"), []byte("[profile other]\nregion = us-east-1\n"), 0o600))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION"} {
		t.Setenv(k, "")
	}
	bucket := srv.NewBucket(t)
	fsys, err := vfs.Get(t.Context(), "s3a://"+bucket+"/?profile=other&endpoint="+url.QueryEscape(srv.Endpoint))
	require.NoError(t, err)
	p := vfs.MustPath("s3a://" + bucket + "/profiled")
	require.NoError(t, vfs.WriteFile(t.Context(), fsys, p, []byte("via profile"), vfs.NoOverwrite))
	got, err := vfs.ReadFile(t.Context(), fsys, p)
	require.NoError(t, err)
	assert.Equal(t, "via profile", string(got))
}

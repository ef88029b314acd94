package s3_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestEndpointSecretsNeverShow: an endpoint may carry a password in its user
// info or a secret in its query (the SDK refuses the latter when it resolves the
// endpoint); no error, and no String of the options, shows either, in any
// encoding, and a missing bucket is still a BucketNotFoundError.
func TestEndpointSecretsNeverShow(t *testing.T) {
	const secret = `p/a#s?s"w%40rd`
	srv := s3test.SeaweedFS(t)
	ctx := t.Context()
	base, err := url.Parse(srv.Endpoint)
	require.NoError(t, err)
	withUser := *base
	withUser.User = url.UserPassword("u", secret)
	for _, endpoint := range []string{withUser.String(), srv.Endpoint + "/?secret=" + url.QueryEscape(secret)} {
		o := optionsFor(srv, nil)
		o.Endpoint = endpoint
		fsys, err := s3.New(ctx, "no-such-bucket-here", o)
		require.NoError(t, err)
		_, err = fsys.List(ctx, vfs.MustPath("/"))
		require.Error(t, err)
		var bnf *s3.BucketNotFoundError
		if endpoint == withUser.String() && assert.ErrorAs(t, err, &bnf, "got %v", err) {
			assert.Contains(t, bnf.Error(), "xxxxx@"+base.Host)
		}
		raw := &s3.BucketNotFoundError{Bucket: "b", Endpoint: "http://h/?X-Amz-Signature=" + secret}
		for _, s := range []string{err.Error(), fmt.Sprintf("%+v %#v", err, err), raw.Error(), o.String(), fmt.Sprintf("%#v", o)} {
			for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret)} {
				assert.NotContains(t, s, form)
			}
			assert.Contains(t, s, "xxxxx")
		}
	}
}

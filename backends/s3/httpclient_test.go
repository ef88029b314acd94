package s3_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestHTTPClientWithCABundle uses Options.HTTPClient while AWS_CA_BUNDLE is set
// (as on CI): the SDK's default chain adds the bundle to its own buildable
// client, and a plain *http.Client given in Options must still send every
// request.
func TestHTTPClientWithCABundle(t *testing.T) {
	t.Setenv("AWS_CA_BUNDLE", "testdata/ca-bundle.pem")
	srv := s3test.GoFakeS3(t)
	c := s3test.NewCounter(nil)
	fsys, _ := newFS(t, srv, optionsFor(srv, c))
	ctx := t.Context()
	p := vfs.MustPath("/f")
	require.NoError(t, vfs.WriteFile(ctx, fsys, p, []byte("hello"), vfs.NoOverwrite))
	got, err := vfs.ReadFile(ctx, fsys, p)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(got))
	assert.Equal(t, map[string]int{s3test.OpPutObject: 1, s3test.OpGetObject: 1}, c.Counts(), "every request went through Options.HTTPClient")
}

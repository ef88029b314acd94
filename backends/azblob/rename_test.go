package azblob_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/vfs"
)

// TestRenameDeletesOnlyTheVersionItCopied writes a new version of the source
// right after Azurite answered Rename's Copy Blob (through a proxy, before
// the client hears it): the new version stays at the source. And one
// written right after the source's HEAD: the copy, conditional on the
// source's ETag, is refused, and nothing moves.
func TestRenameDeletesOnlyTheVersionItCopied(t *testing.T) {
	srv := azuritetest.Shared(t)
	ctx := t.Context()
	container, err := srv.NewContainer(ctx)
	require.NoError(t, err)
	p, err := faultproxy.Start(srv.Endpoint)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	u, err := url.Parse(srv.Endpoint)
	require.NoError(t, err)
	var o azblob.Options
	o.ConnectionString = fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=%s%s;", azuritetest.Account, azuritetest.Key, p.URL(), u.Path)
	proxied, err := azblob.New(ctx, container, o)
	require.NoError(t, err)
	o.ConnectionString = srv.ConnectionString
	direct, err := azblob.New(ctx, container, o)
	require.NoError(t, err)
	isCopy := func(r *http.Request) bool {
		return r.Method == http.MethodPut && r.Header.Get("X-Ms-Copy-Source") != ""
	}
	buckettest.RenameKeepsWrites(t, proxied, direct, vfs.MustPath("azblob://"+container+"/rename"), buckettest.ArmProxy(p, isCopy))
	isHead := func(r *http.Request) bool {
		return r.Method == http.MethodHead && strings.HasSuffix(r.URL.Path, "/src")
	}
	buckettest.RenameRefusesSourceChangedBeforeCopy(t, proxied, direct, vfs.MustPath("azblob://"+container+"/rename"), buckettest.ArmProxy(p, isHead))
}

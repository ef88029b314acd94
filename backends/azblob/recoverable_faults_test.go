package azblob_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/backends/internal/rwtest"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/vfs"
)

// faulted returns two file systems (with o) on one fresh container of the
// shared Azurite: one through a fault proxy (whose faults the test sets) and
// one direct, to check what the store really holds.
func faulted(t *testing.T, o azblob.Options) (faulty, direct vfs.FileSystem, p *faultproxy.Proxy, container string) {
	t.Helper()
	srv := azuritetest.Shared(t)
	ctx := t.Context()
	container, err := srv.NewContainer(ctx)
	require.NoError(t, err)
	p, err = faultproxy.Start(srv.Endpoint)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	u, err := url.Parse(srv.Endpoint)
	require.NoError(t, err)
	o.ConnectionString = fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=%s%s;", azuritetest.Account, azuritetest.Key, p.URL(), u.Path)
	faulty, err = azblob.New(ctx, container, o)
	require.NoError(t, err)
	o.ConnectionString = srv.ConnectionString
	direct, err = azblob.New(ctx, container, o)
	require.NoError(t, err)
	return faulty, direct, p, container
}

// isBlockList selects Put Block List requests (PUT ?comp=blocklist).
func isBlockList(r *http.Request) bool {
	return r.Method == http.MethodPut && r.URL.Query().Get("comp") == "blocklist"
}

// isBlock selects Put Block requests (PUT ?comp=block).
func isBlock(r *http.Request) bool {
	return r.Method == http.MethodPut && r.URL.Query().Get("comp") == "block"
}

// TestRecoverableLostAnswers loses answers to Put Block and Put Block List
// on their way back from Azurite: the blob was committed, the client never
// heard it. Nothing corrupt is ever published, every stream converges with
// CommitAfterRecovery (or recovery from its last token), and no blob keeps
// uncommitted blocks.
func TestRecoverableLostAnswers(t *testing.T) {
	srv := azuritetest.Shared(t)
	ctx := t.Context()
	faulty, direct, p, container := faulted(t, azblob.Options{PartSize: 64 << 10})
	w, err := vfs.NewRecoverableWriter(faulty)
	require.NoError(t, err)
	wDirect, err := vfs.NewRecoverableWriter(direct)
	require.NoError(t, err)

	for i, c := range []struct {
		name   string
		faults faultproxy.Faults
	}{
		{"EveryBlockList", faultproxy.Faults{Drop: 1, Match: isBlockList}},
		{"SomeBlocksAndBlockLists", faultproxy.Faults{Drop: 0.4, Seed: 3, Match: func(r *http.Request) bool { return isBlock(r) || isBlockList(r) }}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p.Set(c.faults)
			var streams []*rwtest.Stream
			for j := range 3 {
				path := vfs.MustPath(fmt.Sprintf("azblob://%s/lost%d/f%d", container, i, j))
				streams = append(streams, rwtest.WriteWithRecovery(ctx, w, path, 10*j, 64<<10+100*j))
			}
			assert.Positive(t, p.Counts().Dropped)
			rwtest.RequireNothingCorrupt(t, direct, streams)
			p.Set(faultproxy.Faults{})
			rwtest.Converge(t, direct, wDirect, streams)
			require.Empty(t, uncommitted(t, srv.Client().ServiceClient().NewContainerClient(container), fmt.Sprintf("lost%d/", i)))
		})
	}
}

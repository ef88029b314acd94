package azblob_test

import (
	"io/fs"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/vfs"
)

// TestHadoopURIsAreTheConfiguredAccountsBlobs: Flink's and Hadoop's Azure
// URIs of the configured account are azblob:// locations; another account's
// are foreign (vfs.ErrForeign), never the same as anything.
func TestHadoopURIsAreTheConfiguredAccountsBlobs(t *testing.T) {
	ctx := t.Context()
	opts := azblob.Options{ConnectionString: "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:1/devstoreaccount1;"}
	assert.Equal(t, "devstoreaccount1", azblob.Account(opts))
	id := azblob.IdentityOf(opts)
	want := vfs.MustPath("azblob://flink/ck/job/shared/x")
	for _, s := range []string{
		"abfss://flink@devstoreaccount1.dfs.core.windows.net/ck/job/shared/x",
		"abfs://flink@devstoreaccount1.dfs.core.windows.net/ck/job/shared/x",
		"wasbs://flink@devstoreaccount1.blob.core.windows.net/ck/job/shared/x",
		"wasb://flink@DevStoreAccount1.blob.core.windows.net/ck/job/shared/x",
		"azblob://flink/ck/job/shared/x",
	} {
		k, err := id(ctx, nil, vfs.MustPath(s))
		require.NoError(t, err, s)
		assert.Equal(t, want, k, s)
	}
	_, err := id(ctx, nil, vfs.MustPath("abfss://flink@someoneelse.dfs.core.windows.net/x"))
	require.ErrorIs(t, err, vfs.ErrForeign)
	assert.Contains(t, err.Error(), `"someoneelse"`)
	for _, bad := range []string{"abfss://flink@x.example.com/x", "abfss://devstoreaccount1.dfs.core.windows.net/x", "abfss://Bad_Name@devstoreaccount1.dfs.core.windows.net/x"} {
		_, err := id(ctx, nil, vfs.MustPath(bad))
		require.ErrorIs(t, err, fs.ErrInvalid, bad)
	}
	u, err := url.Parse("abfss://flink@someoneelse.dfs.core.windows.net/")
	require.NoError(t, err)
	_, err = azblob.HadoopFactory(opts)(ctx, u)
	require.ErrorIs(t, err, vfs.ErrForeign)
}

// TestHadoopURIsOpenTheContainer: an abfss:// URI of Azurite's account
// reaches the blobs azblob:// names, and keeps its own spelling.
func TestHadoopURIsOpenTheContainer(t *testing.T) {
	ctx := t.Context()
	srv := azuritetest.Shared(t)
	container, err := srv.NewContainer(ctx)
	require.NoError(t, err)
	opts := azblob.Options{ConnectionString: srv.ConnectionString}
	r := vfs.NewRegistry()
	require.NoError(t, r.Register(azblob.Scheme, azblob.Factory(opts)))
	require.NoError(t, r.Register("abfss", azblob.HadoopFactory(opts)))
	abfss := vfs.MustPath("abfss://" + container + "@" + azuritetest.Account + ".dfs.core.windows.net/dir/f")
	fa, err := r.GetPath(ctx, abfss)
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(ctx, fa, abfss, []byte("hello"), vfs.NoOverwrite))
	plain := vfs.MustPath("azblob://" + container + "/dir/f")
	fb, err := r.GetPath(ctx, plain)
	require.NoError(t, err)
	got, err := vfs.ReadFile(ctx, fb, plain)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(got))
	list, err := fa.List(ctx, abfss.Parent())
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, abfss, list[0].Path)
}

package azblob_test

import (
	"bytes"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"

	sdk "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/vfs"
)

// exactNames are blob names gocloud's driver would store escaped: every
// other client names them as they are.
var exactNames = []string{"tab\there", `"quoted"`, "hash#b.txt", "100%", "what?",
	"looks__0x41__escaped", "a__0x23__b.txt", "x..", "dt=2024-01-01%3A00/part 0#1.txt", "a../b", "ünï"}

// rawNames lists every blob name under prefix with the plain Azure SDK.
func rawNames(t *testing.T, client *sdk.Client, container, prefix string) []string {
	t.Helper()
	var names []string
	pager := client.NewListBlobsFlatPager(container, &sdk.ListBlobsFlatOptions{Prefix: &prefix})
	for pager.More() {
		page, err := pager.NextPage(t.Context())
		require.NoError(t, err)
		for _, b := range page.Segment.BlobItems {
			names = append(names, strings.TrimPrefix(*b.Name, prefix))
		}
	}
	slices.Sort(names)
	return names
}

// TestNamesAreExact: a name vfskit writes is the name the Azure SDK lists
// (no "__0x23__"), and a name the SDK wrote is listed, read, copied, moved
// and removed by vfskit under that name, an old escaped name included.
func TestNamesAreExact(t *testing.T) {
	srv := azuritetest.Shared(t)
	ctx := t.Context()
	container, err := srv.NewContainer(ctx)
	require.NoError(t, err)
	fsys, err := azblob.New(ctx, container, azblob.Options{ConnectionString: srv.ConnectionString})
	require.NoError(t, err)
	client := srv.Client()
	root := vfs.MustPath("azblob://" + container)
	want := slices.Sorted(slices.Values(exactNames))

	for _, n := range exactNames {
		require.NoError(t, vfs.WriteFile(ctx, fsys, root.Join("w").Join(strings.Split(n, "/")...), []byte(n), vfs.NoOverwrite), "%q", n)
	}
	assert.Equal(t, want, rawNames(t, client, container, "w/"), "the SDK lists the names vfskit wrote")

	for _, n := range exactNames {
		_, err := client.UploadBuffer(ctx, container, "r/"+n, []byte(n), nil)
		require.NoError(t, err, "%q", n)
	}
	var listed []string
	require.NoError(t, vfs.Walk(ctx, fsys, root.Join("r"), func(st vfs.FileStatus, err error) error {
		require.NoError(t, err)
		if st.IsDir {
			return nil
		}
		p := st.Path
		rel := strings.TrimPrefix(p.Path(), "/r/")
		listed = append(listed, rel)
		got, err := vfs.ReadFile(ctx, fsys, p)
		require.NoError(t, err, "read %q", rel)
		assert.Equal(t, rel, string(got), "%q reads its own bytes", rel)
		st, err = fsys.Stat(ctx, p)
		require.NoError(t, err, "stat %q", rel)
		assert.EqualValues(t, len(rel), st.Size)
		return nil
	}))
	slices.Sort(listed)
	assert.Equal(t, want, listed, "vfskit lists the names the SDK wrote")

	// Azure stores '\' as '/': such a name is refused before any request.
	err = vfs.WriteFile(ctx, fsys, root.Join(`back\slash`), nil, vfs.NoOverwrite)
	require.ErrorIs(t, err, fs.ErrInvalid)

	// The documented rename of an old escaped name.
	require.NoError(t, fsys.Rename(ctx, root.Join("r", "a__0x23__b.txt"), root.Join("r", "a#b.txt")))
	require.NoError(t, fsys.Rename(ctx, root.Join("r", "hash#b.txt"), root.Join("r", "moved?.txt")))
	_, err = vfs.CopyWithMode(ctx, fsys, root.Join("r", "copy%.txt"), fsys, root.Join("r", "100%"), vfs.NoOverwrite)
	require.NoError(t, err)
	got := rawNames(t, client, container, "r/")
	for _, n := range []string{"a#b.txt", "moved?.txt", "copy%.txt", "100%"} {
		assert.Contains(t, got, n)
	}
	for _, n := range []string{"a__0x23__b.txt", "hash#b.txt"} {
		assert.NotContains(t, got, n)
	}
	require.NoError(t, fsys.Delete(ctx, root.Join("r"), true))
	assert.Empty(t, rawNames(t, client, container, "r/"), "rm -r leaves no blob")
}

// TestWriteIDMetadataReadsCleanly: the write id vfskit keeps on every blob
// is a metadata key any client reads as is (not vfskit__0x2d__write__0x2d__id).
func TestWriteIDMetadataReadsCleanly(t *testing.T) {
	srv := azuritetest.Shared(t)
	ctx := t.Context()
	container, err := srv.NewContainer(ctx)
	require.NoError(t, err)
	fsys, err := azblob.New(ctx, container, azblob.Options{ConnectionString: srv.ConnectionString})
	require.NoError(t, err)
	p := vfs.MustPath("azblob://" + container + "/f.txt")
	require.NoError(t, vfs.WriteFile(ctx, fsys, p, []byte("x"), vfs.NoOverwrite))
	props, err := srv.Client().ServiceClient().NewContainerClient(container).NewBlobClient("f.txt").GetProperties(ctx, nil)
	require.NoError(t, err)
	var keys []string
	for k := range props.Metadata {
		keys = append(keys, k)
	}
	require.Len(t, keys, 1)
	assert.Equal(t, blobfs.WriteIDMetadata, strings.ToLower(keys[0]), "HTTP header names ignore case")
	assert.NotContains(t, blobfs.WriteIDMetadata, "_")
}

// TestRecoverableWriterTakesExactNames: the recoverable writer writes names
// the driver would escape, and the SDK lists them as named.
func TestRecoverableWriterTakesExactNames(t *testing.T) {
	srv := azuritetest.Shared(t)
	ctx := t.Context()
	container, err := srv.NewContainer(ctx)
	require.NoError(t, err)
	fsys, err := azblob.New(ctx, container, azblob.Options{ConnectionString: srv.ConnectionString})
	require.NoError(t, err)
	rw, err := vfs.NewRecoverableWriter(fsys)
	require.NoError(t, err)
	names := []string{"part 0#1?.txt", "looks__0x41__escaped", "back__0x5c__slash%"}
	for _, n := range names {
		out, err := rw.Open(ctx, vfs.MustPath("azblob://"+container+"/rw").Join(n))
		require.NoError(t, err, "%q", n)
		_, err = io.Copy(out, bytes.NewReader([]byte(n)))
		require.NoError(t, err)
		_, err = out.Persist(ctx)
		require.NoError(t, err)
		c, err := out.CloseForCommit(ctx)
		require.NoError(t, err)
		require.NoError(t, c.Commit(ctx), "%q", n)
		got, err := vfs.ReadFile(ctx, fsys, vfs.MustPath("azblob://"+container+"/rw").Join(n))
		require.NoError(t, err)
		assert.Equal(t, n, string(got))
	}
	assert.Equal(t, slices.Sorted(slices.Values(names)), rawNames(t, srv.Client(), container, "rw/"))
}

// TestAttributes: Content-Type from the extension, and attributes given on
// Create, as the Azure SDK reads them.
func TestAttributes(t *testing.T) {
	srv := azuritetest.Shared(t)
	container, err := srv.NewContainer(t.Context())
	require.NoError(t, err)
	fsys, err := azblob.New(t.Context(), container, azblob.Options{ConnectionString: srv.ConnectionString})
	require.NoError(t, err)
	buckettest.Attributes(t, fsys, vfs.MustPath("azblob://"+container+"/attrs"), func(key string) vfs.Attributes {
		props, err := srv.Client().ServiceClient().NewContainerClient(container).NewBlobClient(key).GetProperties(t.Context(), nil)
		require.NoError(t, err)
		a := vfs.Attributes{Metadata: map[string]string{}}
		for k, v := range props.Metadata {
			a.Metadata[strings.ToLower(k)] = *v
		}
		if props.ContentType != nil {
			a.ContentType = *props.ContentType
		}
		if props.ContentEncoding != nil {
			a.ContentEncoding = *props.ContentEncoding
		}
		if props.CacheControl != nil {
			a.CacheControl = *props.CacheControl
		}
		return a
	})
}

package buckettest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/vfs"
)

// RawAttributes returns what the store's own SDK reads of the object key:
// Content-Type, Content-Encoding, Cache-Control and user metadata (keys in
// lower case).
type RawAttributes func(key string) vfs.Attributes

// Attributes checks that a file vfskit creates carries the Content-Type of
// its extension, and one created with attributes carries them, as the
// store's own SDK reads them (raw) and as StatAttributes tells.
func Attributes(t *testing.T, fsys *blobfs.FileSystem, dir vfs.Path, raw RawAttributes) {
	t.Helper()
	ctx := t.Context()
	key := func(p vfs.Path) string { return p.Path()[1:] }
	for name, want := range map[string]string{"data.json": "application/json", "page.html": "text/html; charset=utf-8", "blob": "application/octet-stream"} {
		p := dir.Join(name)
		require.NoError(t, vfs.WriteFile(ctx, fsys, p, []byte("{}"), vfs.NoOverwrite))
		assert.Equal(t, want, raw(key(p)).ContentType, "the Content-Type of %s", name)
	}
	a := vfs.Attributes{ContentType: "text/csv", ContentEncoding: "gzip", CacheControl: "max-age=60", Metadata: map[string]string{"owner": "team-a", "stage": "raw"}}
	p := dir.Join("part.csv.gz")
	out, err := fsys.CreateWithAttributes(ctx, p, vfs.NoOverwrite, a)
	require.NoError(t, err)
	_, err = out.Write([]byte("x"))
	require.NoError(t, err)
	require.NoError(t, out.Close())
	got := raw(key(p))
	assert.Equal(t, a.ContentType, got.ContentType)
	assert.Equal(t, a.ContentEncoding, got.ContentEncoding)
	assert.Equal(t, a.CacheControl, got.CacheControl)
	for k, v := range a.Metadata {
		assert.Equal(t, v, got.Metadata[k], "metadata %s as the store's SDK reads it", k)
	}
	st, err := fsys.StatAttributes(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, a, st, "StatAttributes tells the attributes, without vfskit's own metadata")
}

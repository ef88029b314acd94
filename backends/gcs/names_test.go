package gcs_test

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/gcs"
	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/internal/gcstest"
	"github.com/vfskit/vfskit/vfs"
)

// exactNames are object names gocloud's driver would store escaped: every
// other client names them as they are.
var exactNames = []string{"line\nfeed", "carriage\rreturn", "looks__0x41__escaped", "a__0x0a__b", "x..", "a../b", "q?#%.txt"}

// rawNames lists every object name under prefix as fake-gcs-server holds it.
func rawNames(t *testing.T, srv *gcstest.Server, bucket, prefix string) []string {
	t.Helper()
	objs, _, err := srv.Fake().ListObjectsWithOptions(bucket, fakestorage.ListOptions{Prefix: prefix})
	require.NoError(t, err)
	var names []string
	for _, o := range objs {
		names = append(names, strings.TrimPrefix(o.Name, prefix))
	}
	slices.Sort(names)
	return names
}

// TestNamesAreExact: a name vfskit writes is the name GCS holds, and a name
// another client wrote is listed, read, copied, moved and removed by vfskit
// under that name.
func TestNamesAreExact(t *testing.T) {
	srv := gcstest.Shared(t)
	ctx := t.Context()
	bucket := srv.NewBucket()
	fsys, err := gcs.New(ctx, bucket, gcs.Options{})
	require.NoError(t, err)
	root := vfs.MustPath("gs://" + bucket)
	want := slices.Sorted(slices.Values(exactNames))

	for _, n := range exactNames {
		require.NoError(t, vfs.WriteFile(ctx, fsys, root.Join("w").Join(strings.Split(n, "/")...), []byte(n), vfs.NoOverwrite), "%q", n)
	}
	assert.Equal(t, want, rawNames(t, srv, bucket, "w/"), "GCS holds the names vfskit wrote")
	err = vfs.WriteFile(ctx, fsys, root.Join("w", "looks__0x41__escaped"), nil, vfs.NoOverwrite)
	require.Error(t, err, "NoOverwrite holds on an exact name")

	for _, n := range exactNames {
		srv.Fake().CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: "r/" + n}, Content: []byte(n)})
	}
	var listed []string
	require.NoError(t, vfs.Walk(ctx, fsys, root.Join("r"), func(st vfs.FileStatus, err error) error {
		require.NoError(t, err)
		if st.IsDir {
			return nil
		}
		rel := strings.TrimPrefix(st.Path.Path(), "/r/")
		listed = append(listed, rel)
		got, err := vfs.ReadFile(ctx, fsys, st.Path)
		require.NoError(t, err, "read %q", rel)
		assert.Equal(t, rel, string(got), "%q reads its own bytes", rel)
		return nil
	}))
	slices.Sort(listed)
	assert.Equal(t, want, listed, "vfskit lists the names another client wrote")

	require.NoError(t, fsys.Rename(ctx, root.Join("r", "looks__0x41__escaped"), root.Join("r", "moved__0x42__")))
	_, err = vfs.CopyWithMode(ctx, fsys, root.Join("r", "copy\n"), fsys, root.Join("r", "line\nfeed"), vfs.NoOverwrite)
	require.NoError(t, err)
	got := rawNames(t, srv, bucket, "r/")
	assert.Contains(t, got, "moved__0x42__")
	assert.Contains(t, got, "copy\n")
	assert.NotContains(t, got, "looks__0x41__escaped")
	require.NoError(t, fsys.Delete(ctx, root.Join("r"), true))
	assert.Empty(t, rawNames(t, srv, bucket, "r/"), "rm -r leaves no object")
}

// TestRecoverableWriterTakesExactNames: the recoverable writer (pieces
// composed at commit) writes names the driver would escape.
func TestRecoverableWriterTakesExactNames(t *testing.T) {
	srv := gcstest.Shared(t)
	ctx := t.Context()
	bucket := srv.NewBucket()
	fsys, err := gcs.New(ctx, bucket, gcs.Options{})
	require.NoError(t, err)
	rw, err := vfs.NewRecoverableWriter(fsys)
	require.NoError(t, err)
	names := []string{"line\nfeed", "looks__0x41__escaped", "a..x"}
	for _, n := range names {
		p := vfs.MustPath("gs://" + bucket + "/rw").Join(n)
		out, err := rw.Open(ctx, p)
		require.NoError(t, err, "%q", n)
		_, err = io.Copy(out, bytes.NewReader([]byte(n)))
		require.NoError(t, err)
		_, err = out.Persist(ctx)
		require.NoError(t, err)
		_, err = out.Write([]byte("!"))
		require.NoError(t, err)
		c, err := out.CloseForCommit(ctx)
		require.NoError(t, err)
		require.NoError(t, c.Commit(ctx), "%q", n)
		got, err := vfs.ReadFile(ctx, fsys, p)
		require.NoError(t, err)
		assert.Equal(t, n+"!", string(got))
	}
	assert.Equal(t, slices.Sorted(slices.Values(names)), rawNames(t, srv, bucket, "rw/"))
}

// TestAttributes: Content-Type from the extension, and attributes given on
// Create, as GCS holds them.
func TestAttributes(t *testing.T) {
	srv := gcstest.Shared(t)
	bucket := srv.NewBucket()
	fsys, err := gcs.New(t.Context(), bucket, gcs.Options{})
	require.NoError(t, err)
	buckettest.Attributes(t, fsys, vfs.MustPath("gs://"+bucket+"/attrs"), func(key string) vfs.Attributes {
		o, err := srv.Fake().GetObject(bucket, key)
		require.NoError(t, err)
		return vfs.Attributes{ContentType: o.ContentType, ContentEncoding: o.ContentEncoding, CacheControl: o.CacheControl, Metadata: o.Metadata}
	})
}

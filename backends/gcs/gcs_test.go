package gcs_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/gcs"
	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/internal/gcstest"
	"github.com/vfskit/vfskit/internal/nametest"
	"github.com/vfskit/vfskit/vfs"
)

func TestBadBucketNamesAreRefusedBeforeAnyRequest(t *testing.T) {
	buckettest.BadNames(t, map[string]string{
		"gs:///x":                          "no bucket",
		"gs://ab/x":                        `"ab" is 2 bytes long`,
		"gs://" + strings.Repeat("a", 223): "223 bytes long",
		"gs://Caps/x":                      `"Caps" holds a character`,
		"gs://user:secret@bucket/x":        "user info",
	})
	_, err := vfs.Get(t.Context(), "gs://under_score.and-dash.ok2/x?anonymous=true&z")
	require.Error(t, err, "a good name; an unknown query parameter is gocloud's to refuse")
	assert.Contains(t, err.Error(), `"z"`)
}

func TestLongKeysAreRefusedBeforeAnyRequest(t *testing.T) {
	gcstest.Shared(t)
	fsys, err := gcs.New(t.Context(), "some-bucket", gcs.Options{})
	require.NoError(t, err)
	_, err = fsys.Create(t.Context(), vfs.MustPath("/"+strings.Repeat("k", gcs.MaxKeyLength+1)), vfs.Overwrite)
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "at most 1024")
}

// TestEscapedNamesRoundTrip writes names gocloud's driver stores escaped and
// reads every one back by the name a listing shows.
func TestEscapedNamesRoundTrip(t *testing.T) {
	srv := gcstest.Shared(t)
	bucket := srv.NewBucket()
	fsys, err := gcs.New(t.Context(), bucket, gcs.Options{})
	require.NoError(t, err)
	dir := vfs.MustPath("gs://" + bucket + "/names")
	names := []string{"line\nfeed", "carriage\rreturn", "looks__0x41__escaped", "x..", "__0x2f__"}
	nametest.RoundTrip(t, fsys, dir, names)
}

// TestStreamReadsOneVersion: a stream's later GETs are conditional on the
// generation of its first response (HEAD or GET).
func TestStreamReadsOneVersion(t *testing.T) {
	bucket := gcstest.Shared(t).NewBucket()
	plain, err := gcs.New(t.Context(), bucket, gcs.Options{})
	require.NoError(t, err)
	strict, err := gcs.New(t.Context(), bucket, gcs.Options{Strict: true})
	require.NoError(t, err)
	buckettest.OneVersion(t, plain, strict, vfs.MustPath("gs://"+bucket+"/versions"))
}

// TestOddKeysAreNeverDeletedUnnamed writes keys no path names ("src/./dot.txt",
// "src//empty.txt", "src/sub/..") to fake-gcs-server: listings show the
// others, each reaching its object, and a recursive delete refuses, deleting
// nothing.
func TestOddKeysAreNeverDeletedUnnamed(t *testing.T) {
	bucket := gcstest.Shared(t).NewBucket()
	fsys, err := gcs.New(t.Context(), bucket, gcs.Options{})
	require.NoError(t, err)
	buckettest.OddKeysInBucket(t, fsys, fsys.Bucket(), vfs.MustPath("gs://"+bucket+"/odd"))
}

// TestWrittenVersion: a stream tells the generation its upload created, for
// one request and for a resumable upload of several chunks.
func TestWrittenVersion(t *testing.T) {
	bucket := gcstest.Shared(t).NewBucket()
	fsys, err := gcs.New(t.Context(), bucket, gcs.Options{PartSize: 256 << 10})
	require.NoError(t, err)
	root := vfs.MustPath("gs://" + bucket)
	buckettest.WrittenVersion(t, fsys, root.Join("small"), 5)
	buckettest.WrittenVersion(t, fsys, root.Join("chunks"), 3*256<<10+1)
}

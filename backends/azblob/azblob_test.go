package azblob_test

import (
	"io/fs"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/nametest"
	"github.com/vfskit/vfskit/vfs"
)

func TestBadContainerNamesAreRefusedBeforeAnyRequest(t *testing.T) {
	buckettest.BadNames(t, map[string]string{
		"azblob:///x":                         "no container",
		"azblob://ab/x":                       `"ab" is 2 bytes long`,
		"azblob://" + strings.Repeat("a", 64): "64 bytes long",
		"azblob://under_score/x":              "not lowercase letters",
		"azblob://-lead/x":                    "not lowercase letters",
		"azblob://trail-/x":                   "not lowercase letters",
		"azblob://user:secret@container/x":    "user info",
		"azblob://dotted.name/x":              "not lowercase letters",
	})
}

func TestConnectionStringErrorsHideTheKey(t *testing.T) {
	_, err := azblob.New(t.Context(), "container", azblob.Options{ConnectionString: "AccountKey=s3cret-key;garbage"})
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.NotContains(t, err.Error(), "s3cret")
	assert.Contains(t, err.Error(), "connection string is not valid")

	u, err := url.Parse("azblob://container/?domain=d")
	require.NoError(t, err)
	_, err = azblob.Factory(azblob.Options{ConnectionString: "x"})(t.Context(), u)
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "query parameters are not used with a connection string")
}

// TestEscapedNamesRoundTrip writes names gocloud's driver stores escaped on
// Azure and reads every one back by the name a listing shows.
func TestEscapedNamesRoundTrip(t *testing.T) {
	srv := azuritetest.Shared(t)
	container, err := srv.NewContainer(t.Context())
	require.NoError(t, err)
	fsys, err := azblob.New(t.Context(), container, azblob.Options{ConnectionString: srv.ConnectionString})
	require.NoError(t, err)
	dir := vfs.MustPath("azblob://" + container + "/names")
	names := []string{"tab\there", `"quoted"`, "hash#", "100%", "what?", "looks__0x41__escaped", "x.."}
	nametest.RoundTrip(t, fsys, dir, names)
}

// TestStreamReadsOneVersion: a stream's later GETs are conditional on the
// ETag of its first response (HEAD or GET).
func TestStreamReadsOneVersion(t *testing.T) {
	srv := azuritetest.Shared(t)
	container, err := srv.NewContainer(t.Context())
	require.NoError(t, err)
	plain, err := azblob.New(t.Context(), container, azblob.Options{ConnectionString: srv.ConnectionString})
	require.NoError(t, err)
	strict, err := azblob.New(t.Context(), container, azblob.Options{ConnectionString: srv.ConnectionString, Strict: true})
	require.NoError(t, err)
	buckettest.OneVersion(t, plain, strict, vfs.MustPath("azblob://"+container+"/versions"))
}

// TestOddKeysAreNeverDeletedUnnamed writes keys no path names ("src/./dot.txt",
// "src//empty.txt", "src/sub/..") to Azurite: listings show the others, each
// reaching its object, and a recursive delete refuses, deleting nothing.
func TestOddKeysAreNeverDeletedUnnamed(t *testing.T) {
	srv := azuritetest.Shared(t)
	container, err := srv.NewContainer(t.Context())
	require.NoError(t, err)
	fsys, err := azblob.New(t.Context(), container, azblob.Options{ConnectionString: srv.ConnectionString})
	require.NoError(t, err)
	buckettest.OddKeysInBucket(t, fsys, fsys.Bucket(), vfs.MustPath("azblob://"+container+"/odd"))
}

// TestWrittenVersion: a stream tells the ETag Azure answered the request
// that published its blob with, for one Put Blob and for staged blocks
// committed by Put Block List.
func TestWrittenVersion(t *testing.T) {
	srv := azuritetest.Shared(t)
	container, err := srv.NewContainer(t.Context())
	require.NoError(t, err)
	fsys, err := azblob.New(t.Context(), container, azblob.Options{ConnectionString: srv.ConnectionString, PartSize: 1 << 20})
	require.NoError(t, err)
	root := vfs.MustPath("azblob://" + container)
	buckettest.WrittenVersion(t, fsys, root.Join("small"), 5)
	buckettest.WrittenVersion(t, fsys, root.Join("blocks"), 3<<20+1)
}

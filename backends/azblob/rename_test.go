package azblob_test

import (
	"net/http"
	"testing"

	"github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/vfs"
)

// TestRenameDeletesOnlyTheVersionItCopied writes a new version of the source
// right after Azurite answered Rename's Copy Blob (through a proxy, before
// the client hears it): the new version stays at the source. And one
// written right after the source's HEAD: the copy, conditional on the
// source's ETag, is refused, and nothing moves.
func TestRenameDeletesOnlyTheVersionItCopied(t *testing.T) {
	proxied, direct, p, container := faulted(t, azblob.Options{})
	dir := vfs.MustPath("azblob://" + container + "/rename")
	isCopy := func(r *http.Request) bool {
		return r.Method == http.MethodPut && r.Header.Get("X-Ms-Copy-Source") != ""
	}
	buckettest.RenameKeepsWrites(t, proxied, direct, dir, buckettest.ArmProxy(p, isCopy))
	buckettest.RenameRefusesSourceChangedBeforeCopy(t, proxied, direct, dir, buckettest.ArmProxy(p, buckettest.IsHeadOf("src")))
}

package gcs_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/vfs"
)

// TestRenameDeletesOnlyTheVersionItCopied writes a new version of the source
// right after fake-gcs-server stored Rename's copy (an upload: GCS copies
// stream through the process) and before the client hears it: the new
// version stays at the source. And one written right after the source's
// metadata was read: the copy's read, conditional on that generation, is
// refused, and nothing moves.
func TestRenameDeletesOnlyTheVersionItCopied(t *testing.T) {
	proxied, direct, p, bucket := faulted(t)
	dir := vfs.MustPath("gs://" + bucket + "/rename")
	isUpload := func(r *http.Request) bool {
		return r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/upload/")
	}
	buckettest.RenameKeepsWrites(t, proxied, direct, dir, buckettest.ArmProxy(p, isUpload))
	isAttrs := func(r *http.Request) bool { // the object's metadata: GCS's HEAD
		return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/src") && r.URL.Query().Get("alt") != "media"
	}
	buckettest.RenameRefusesSourceChangedBeforeCopy(t, proxied, direct, dir, buckettest.ArmProxy(p, isAttrs))
}

package s3_test

import (
	"net/http"
	"testing"

	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/backends/internal/renametest"
	"github.com/vfskit/vfskit/vfs"
)

// TestRenameDeletesOnlyTheVersionItCopied writes a new version of the source
// right after SeaweedFS answered Rename's CopyObject (through a proxy, before
// the client hears it): the new version stays at the source. And one
// written right after the source's HEAD: the copy, conditional on the
// source's ETag, is refused, and nothing moves.
func TestRenameDeletesOnlyTheVersionItCopied(t *testing.T) {
	faulty, direct, p, bucket := faulted(t, nil)
	dir := vfs.MustPath("s3://" + bucket + "/rename")
	isCopy := func(r *http.Request) bool {
		return r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source") != ""
	}
	buckettest.RenameKeepsWrites(t, faulty, direct, dir, buckettest.ArmProxy(p, isCopy))
	buckettest.RenameRefusesSourceChangedBeforeCopy(t, faulty, direct, dir, buckettest.ArmProxy(p, buckettest.IsHeadOf("src")))
}

// TestRenameWhileTheSourceIsWritten renames on SeaweedFS while another
// goroutine rewrites the source: the newest version is never lost.
func TestRenameWhileTheSourceIsWritten(t *testing.T) {
	_, direct, _, bucket := faulted(t, nil)
	renametest.WhileWritten(t, direct, vfs.MustPath("s3://"+bucket+"/race"), 10)
}

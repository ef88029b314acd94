package s3_test

import (
	"net/http"
	"testing"

	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/backends/internal/renametest"
	"github.com/vfskit/vfskit/internal/s3test"
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

// TestRenameKeepsWritesWhereDeletesIgnoreIfMatch: on a server that ignores
// If-Match on DeleteObject (gofakes3), a version written right after
// Rename's copy stays at the source all the same (a HEAD compares before the
// delete).
func TestRenameKeepsWritesWhereDeletesIgnoreIfMatch(t *testing.T) {
	faulty, direct, p, bucket := faultedOn(t, s3test.GoFakeS3(t), nil)
	isCopy := func(r *http.Request) bool {
		return r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source") != ""
	}
	buckettest.RenameKeepsWrites(t, faulty, direct, vfs.MustPath("s3://"+bucket+"/rename"), buckettest.ArmProxy(p, isCopy))
}

// TestRenameWhileTheSourceIsWritten renames on SeaweedFS while another
// goroutine rewrites the source: the newest version is never lost.
func TestRenameWhileTheSourceIsWritten(t *testing.T) {
	_, direct, _, bucket := faulted(t, nil)
	renametest.WhileWritten(t, direct, vfs.MustPath("s3://"+bucket+"/race"), 10)
}

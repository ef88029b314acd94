package s3_test

import (
	"testing"

	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/vfs"
)

// TestFailedTreeCopyUndone: a copy and a move of a tree on SeaweedFS that
// fail part way (a source key deleted by another client while they run, the
// answers to their writes held back) leave nothing at the destination. A
// regression test: the writes in flight when the copy failed were
// cancelled, the server completed them, and the undo did not know them.
func TestFailedTreeCopyUndone(t *testing.T) {
	faulty, direct, p, bucket := faulted(t, nil)
	buckettest.FailedTreeCopyUndone(t, faulty, direct, vfs.MustPath("s3://"+bucket+"/tree"), p)
}

package gcs_test

import (
	"testing"

	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/vfs"
)

// TestFailedTreeCopyUndone: a copy and a move of a tree on fake-gcs-server
// that fail part way (a source object deleted by another client while they
// run, the answers to their writes held back) leave nothing at the
// destination. A regression test: the writes in flight when the copy failed
// were cancelled, the server completed them, and the undo did not know them.
func TestFailedTreeCopyUndone(t *testing.T) {
	faulty, direct, p, bucket := faulted(t)
	buckettest.FailedTreeCopyUndone(t, faulty, direct, vfs.MustPath("gs://"+bucket+"/tree"), p)
}

package memfs_test

import (
	"testing"

	"github.com/vfskit/vfskit/backends/internal/renametest"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// TestRenameWhileTheSourceIsWritten: a rename on memory:// is atomic, so the
// newest version a racing writer wrote is always at the source or the
// destination.
func TestRenameWhileTheSourceIsWritten(t *testing.T) {
	fsys := memfs.New()
	renametest.WhileWritten(t, fsys, vfs.MustPath("/race").MakeQualified(fsys), 20)
}

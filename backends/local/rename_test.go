package local_test

import (
	"testing"

	"github.com/vfskit/vfskit/backends/internal/renametest"
	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/vfs"
)

// TestRenameWhileTheSourceIsWritten: a rename on file:// is one rename(2),
// so the newest version a racing writer wrote is always at the source or the
// destination.
func TestRenameWhileTheSourceIsWritten(t *testing.T) {
	renametest.WhileWritten(t, local.New(), vfs.MustPath(t.TempDir()), 20)
}

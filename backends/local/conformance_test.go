package local_test

import (
	"testing"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/vfs"
)

func TestConformance(t *testing.T) {
	fsys := local.New()
	conformance.Run(t, conformance.Harness{
		Registered: true,
		New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			return fsys, vfs.MustPath(t.TempDir()).Join("conformance")
		},
		// There is one local file system; a token of memory:// (the same
		// engine) is one of another file system.
		OtherFileSystem: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			return memfs.NewTest(t)
		},
	})
}

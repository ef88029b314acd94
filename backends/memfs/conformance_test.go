package memfs_test

import (
	"testing"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/vfs"
)

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Harness{
		Registered: true,
		New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			fsys := memfs.New()
			return fsys, vfs.MustPath(fsys.URI().String()).Join("conformance")
		},
	})
}

//go:build !unix

package aferofs

import (
	"os"

	"github.com/vfskit/vfskit/vfs"
)

// fileID returns the zero FileID: files here are identified by size and
// modification time.
func fileID(os.FileInfo) vfs.FileID { return vfs.FileID{} }

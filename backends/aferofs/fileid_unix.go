//go:build unix

package aferofs

import (
	"os"
	"syscall"

	"github.com/vfskit/vfskit/vfs"
)

// fileID returns the device and inode of a file on disk, the zero FileID for
// other files.
func fileID(fi os.FileInfo) vfs.FileID {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return vfs.FileID{}
	}
	return vfs.FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}
}

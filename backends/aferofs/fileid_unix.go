//go:build unix

package aferofs

import (
	"os"
	"strconv"
	"syscall"
)

// fileID returns "device:inode" of a file on disk, "" for other files.
func fileID(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(uint64(st.Ino), 10)
}

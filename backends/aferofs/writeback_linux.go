package aferofs

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing the n bytes of file f at
// off to disk and returns without waiting for it (sync_file_range with
// SYNC_FILE_RANGE_WRITE), so that the fsync before publishing finds little
// left to write. It guarantees nothing (the fsync does): a file that is not
// on disk, or a failure, is ignored.
func startWriteback(f any, off, n int64) {
	sc, ok := f.(syscall.Conn)
	if !ok || n <= 0 {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_ = unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}

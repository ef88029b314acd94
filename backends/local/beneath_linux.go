package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/vfskit/vfskit/backends/aferofs"
)

// openBeneath opens dir/rel for reading without following a symbolic link in
// rel: openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or, on kernels
// without openat2, openat with O_NOFOLLOW one name at a time. O_NONBLOCK
// keeps a FIFO from blocking the open; it is cleared again.
func openBeneath(dir, rel string) (*os.File, error) {
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(dfd)
	flags := uint64(unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK)
	fd, err := unix.Openat2(dfd, rel, &unix.OpenHow{Flags: flags, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS})
	if errors.Is(err, unix.ENOSYS) {
		fd, err = openatEach(dfd, rel)
	}
	name := filepath.Join(dir, filepath.FromSlash(rel))
	switch {
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
		return nil, &os.PathError{Op: "open", Path: name, Err: aferofs.ErrLinkInPath}
	case errors.Is(err, unix.ENOTDIR):
		return nil, &os.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (or a file replaced a directory)", aferofs.ErrLinkInPath)}
	case err != nil:
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// openatEach opens rel below the directory dfd one name at a time, each
// with O_NOFOLLOW (directories with O_DIRECTORY too).
func openatEach(dfd int, rel string) (int, error) {
	names := strings.Split(rel, "/")
	cur := dfd
	for i, n := range names {
		last := i == len(names)-1
		flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW
		if last {
			flags |= unix.O_NONBLOCK
		} else {
			flags |= unix.O_DIRECTORY
		}
		fd, err := unix.Openat(cur, n, flags, 0)
		if cur != dfd {
			unix.Close(cur)
		}
		if err != nil {
			return -1, err
		}
		cur = fd
	}
	return cur, nil
}

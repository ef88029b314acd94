package local

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames oldname to newname unless newname exists, atomically:
// renameat2(RENAME_NOREPLACE), or link+unlink where the file system does not
// support the flag.
func renameNoReplace(oldname, newname string) error {
	err := unix.Renameat2(unix.AT_FDCWD, oldname, unix.AT_FDCWD, newname, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.ENOTSUP):
		return linkNoReplace(oldname, newname)
	}
	return &os.LinkError{Op: "renameat2", Old: oldname, New: newname, Err: err}
}

package local

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// linkNoReplace publishes the file oldname at newname with a hard link, which
// fails when newname exists, and then removes oldname. It returns an error that
// errors.Is errors.ErrUnsupported when oldname is not a regular file or the file
// system has no hard links, so the caller can fall back.
func linkNoReplace(oldname, newname string) error {
	fi, err := os.Lstat(oldname)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("link %s: %w: not a regular file", oldname, errors.ErrUnsupported)
	}
	if err := os.Link(oldname, newname); err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, errors.ErrUnsupported) {
			return fmt.Errorf("%w: %w", errors.ErrUnsupported, err) // no hard links here
		}
		return err
	}
	return os.Remove(oldname)
}

package aferofs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/vfskit/vfskit/vfs"
)

// pathError returns the *fs.PathError for op on the vfs path p, with cause (an
// afero or os error) stripped of its afero/OS path, so the message never names
// a temporary file, and classified under the vfs and io/fs sentinels.
func pathError(op string, p vfs.Path, cause error) error {
	return vfs.NewPathError(op, p, classify(stripPath(cause)))
}

// stripPath removes the outer *fs.PathError, *os.LinkError and *os.SyscallError
// wrappers of err, which name afero names rather than vfs paths.
func stripPath(err error) error {
	for {
		switch e := err.(type) {
		case *fs.PathError:
			err = e.Err
		case *os.LinkError:
			err = e.Err
		case *os.SyscallError:
			err = e.Err
		default:
			return err
		}
	}
}

// classified is an error that keeps its cause's message and also matches a
// sentinel with errors.Is.
type classified struct {
	sentinel, cause error
}

func (e *classified) Error() string   { return e.cause.Error() }
func (e *classified) Unwrap() []error { return []error{e.sentinel, e.cause} }

// classify makes errors.Is(err, sentinel) work for the OS errors that the io/fs
// sentinels do not cover.
func classify(err error) error {
	var sentinel error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, vfs.ErrDirNotEmpty), errors.Is(err, vfs.ErrNotDir), errors.Is(err, vfs.ErrIsDir):
		return err
	case errors.Is(err, syscall.ENOTEMPTY):
		sentinel = vfs.ErrDirNotEmpty
	case errors.Is(err, syscall.ENOTDIR):
		sentinel = vfs.ErrNotDir
	case errors.Is(err, syscall.EISDIR):
		sentinel = vfs.ErrIsDir
	default:
		return err
	}
	return &classified{sentinel: sentinel, cause: err}
}

// notExist classifies a failed lookup: ENOTDIR (a file in the way) also means
// the path does not exist, so vfs.Exists reports false.
func notExist(err error) error {
	err = classify(stripPath(err))
	if errors.Is(err, vfs.ErrNotDir) && !errors.Is(err, fs.ErrNotExist) {
		return &classified{sentinel: fs.ErrNotExist, cause: err}
	}
	return err
}

// errorf returns an error that wraps sentinel with a message.
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}

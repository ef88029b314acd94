package cli

import (
	"errors"
	"io/fs"

	"github.com/vfskit/vfskit/vfs"
)

// Exit statuses returned by Run, as Unix tools use them.
const (
	// ExitOK: the command succeeded.
	ExitOK = 0
	// ExitFailure: the command was well-formed but failed (missing file, I/O error,
	// a demo whose counts differ, a corrupted checkpoint, ...).
	ExitFailure = 1
	// ExitUsage: the command line was wrong: unknown command or flag, wrong number
	// of arguments, a URI that does not parse or whose scheme is not registered.
	ExitUsage = 2
	// ExitInterrupted: the command was interrupted (its context was cancelled:
	// Ctrl-C), 128 + SIGINT as shells report it.
	ExitInterrupted = 130
)

// UsageError marks an error caused by the command line rather than by the
// operation; Run maps it to ExitUsage.
type UsageError struct{ Err error }

// Error returns the wrapped error's message.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *UsageError) Unwrap() error { return e.Err }

// usageErr wraps err (when not nil) in a *UsageError.
func usageErr(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{Err: err}
}

// isUsageError reports whether err is a usage error: a *UsageError, or an error
// from resolving a URI (invalid URI, unknown scheme).
func isUsageError(err error) bool {
	var ue *UsageError
	return errors.As(err, &ue) || errors.Is(err, vfs.ErrUnsupportedScheme)
}

// exitStatus maps an error returned by a command's RunE to an exit status.
func exitStatus(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case isUsageError(err):
		return ExitUsage
	}
	return ExitFailure
}

// isInvalid reports whether err says that a value was malformed.
func isInvalid(err error) bool { return errors.Is(err, fs.ErrInvalid) }

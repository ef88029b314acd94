package blobfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"gocloud.dev/gcerrors"

	"github.com/vfskit/vfskit/vfs"
)

// pathError turns an error from the bucket into the *fs.PathError every vfs
// operation returns. Options.DescribeError may first replace it with a clearer
// error; the result is wrapped together with the io/fs sentinel that matches its
// gocloud error code (if it still carries one), so errors.Is works for both.
func (f *FileSystem) pathError(op string, p vfs.Path, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == p.Redacted() {
		return err
	}
	if f.opts.DescribeError != nil {
		err = f.opts.DescribeError(err)
	}
	if sentinel := sentinelFor(err); sentinel != nil {
		err = fmt.Errorf("%w: %w", sentinel, err)
	}
	return vfs.NewPathError(op, p, err)
}

// sentinelFor maps a gocloud error code to the io/fs sentinel it means.
func sentinelFor(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fs.ErrNotExist
	case gcerrors.FailedPrecondition, gcerrors.AlreadyExists:
		return fs.ErrExist
	case gcerrors.PermissionDenied:
		return fs.ErrPermission
	case gcerrors.InvalidArgument:
		return fs.ErrInvalid
	}
	// A request blobfs sent with the S3 client itself (exact keys).
	switch httpStatus(err) {
	case 404:
		return fs.ErrNotExist
	case 403:
		return fs.ErrPermission
	case 412:
		return fs.ErrExist
	}
	return nil
}

// httpStatus returns the HTTP status of a failed S3 request, or 0.
func httpStatus(err error) int {
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) {
		return status.HTTPStatusCode()
	}
	return 0
}

// isNotFound reports whether err from the bucket means "no such object".
func isNotFound(err error) bool {
	return gcerrors.Code(err) == gcerrors.NotFound || gcerrors.Code(err) == gcerrors.Unknown && httpStatus(err) == 404
}

// isPreconditionFailed reports whether err is a failed conditional write: from
// the driver, or from a Store's own request (HTTP 412).
func isPreconditionFailed(err error) bool {
	return gcerrors.Code(err) == gcerrors.FailedPrecondition || gcerrors.Code(err) == gcerrors.Unknown && httpStatus(err) == 412
}

// isInvalidRange reports whether err is S3's answer to a range that starts at or
// past the end of the object (HTTP 416, InvalidRange).
func isInvalidRange(err error) bool {
	var coded interface{ ErrorCode() string }
	if errors.As(err, &coded) && coded.ErrorCode() == "InvalidRange" {
		return true
	}
	return httpStatus(err) == 416
}

// invalid returns a *fs.PathError wrapping fs.ErrInvalid with a reason.
func invalid(op string, p vfs.Path, format string, args ...any) error {
	return vfs.NewPathError(op, p, fmt.Errorf("%w: "+format, append([]any{fs.ErrInvalid}, args...)...))
}

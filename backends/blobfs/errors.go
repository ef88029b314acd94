package blobfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/vfskit/vfskit/vfs"
)

// pathError turns an error from the bucket into the *fs.PathError every vfs
// operation returns. Options.DescribeError may first replace it with a clearer
// error; the result is wrapped together with the io/fs sentinel that matches its
// gocloud error code (code), so errors.Is works for both.
func (f *FileSystem) pathError(op string, p vfs.Path, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == p.Redacted() {
		return err
	}
	described := false
	if f.opts.DescribeError != nil {
		d := f.opts.DescribeError(err)
		described, err = d != err, d
	}
	if sentinel := f.sentinelFor(err); sentinel != nil {
		if described {
			err = &describedError{err: err, sentinel: sentinel}
		} else {
			err = fmt.Errorf("%w: %w", sentinel, err)
		}
	}
	return vfs.NewPathError(op, p, err)
}

// describedError is an error Options.DescribeError replaced with a message
// that says what is wrong ("bucket "b" does not exist ..."): it reads as that
// message alone where the message says what the sentinel does ("does not
// exist", or for fs.ErrPermission "access denied"), else as the sentinel's
// text then the message ("file does not exist: Azure answered HTTP 404
// (BlobNotFound)"); it is the sentinel too to errors.Is.
type describedError struct{ err, sentinel error }

// sameMeaning lists, per sentinel, the words other than its own text by
// which a described message already says it.
var sameMeaning = map[error][]string{fs.ErrPermission: {"access denied"}}

func (e *describedError) Error() string {
	msg := e.err.Error()
	for _, says := range append([]string{strings.TrimPrefix(e.sentinel.Error(), "file ")}, sameMeaning[e.sentinel]...) {
		if strings.Contains(msg, says) {
			return msg
		}
	}
	return e.sentinel.Error() + ": " + msg
}

func (e *describedError) Unwrap() []error { return []error{e.sentinel, e.err} }

// sentinelFor maps err's gocloud error code (code) to the io/fs sentinel it
// means.
func (f *FileSystem) sentinelFor(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, vfs.ErrBucketNotExist) {
		return nil
	}
	switch f.code(err) {
	case gcerrors.NotFound:
		return fs.ErrNotExist
	case gcerrors.FailedPrecondition, gcerrors.AlreadyExists:
		return fs.ErrExist
	case gcerrors.PermissionDenied:
		return fs.ErrPermission
	case gcerrors.InvalidArgument:
		return fs.ErrInvalid
	}
	return nil
}

// code returns the gocloud error code of err: the driver's (gcerrors.Code),
// and where that is gcerrors.Unknown (an error of the Store's own requests, or
// one the driver does not classify) the Store's ErrorCoder's. A refusal is
// never taken for absence: where the driver says gcerrors.NotFound and the
// ErrorCoder gcerrors.PermissionDenied (gocloud's GCS driver calls a 403
// NotFound, since GCS answers 403 for a missing object to whoever may not
// list the bucket), the code is PermissionDenied, so that rm -f or a Stat
// never reads credentials that lack the permission as "no such file".
func (f *FileSystem) code(err error) gcerrors.ErrorCode {
	c := gcerrors.Code(err)
	if f.coder == nil || (c != gcerrors.Unknown && c != gcerrors.NotFound) {
		return c
	}
	own := f.coder.ErrorCode(err)
	if c == gcerrors.Unknown || own == gcerrors.PermissionDenied {
		return own
	}
	return c
}

// bucketMissing returns the error that says the bucket is missing, from a
// listing of one key of the bucket (one request), or nil when the bucket is
// there or the listing fails otherwise. It is asked after a request on an
// object answered "not found", which some stores (GCS, for a write) answer
// alike for a missing object and a missing bucket.
func (f *FileSystem) bucketMissing(ctx context.Context) error {
	_, _, err := f.listPage(ctx, blob.FirstPageToken, 1, "", "")
	if err != nil && f.opts.DescribeError != nil {
		err = f.opts.DescribeError(err)
	}
	if errors.Is(err, vfs.ErrBucketNotExist) {
		return err
	}
	return nil
}

// isNotFound reports whether err from the bucket means "no such object".
func (f *FileSystem) isNotFound(err error) bool { return f.code(err) == gcerrors.NotFound }

// isPreconditionFailed reports whether err is a failed conditional request.
func (f *FileSystem) isPreconditionFailed(err error) bool {
	return f.code(err) == gcerrors.FailedPrecondition
}

// isUnimplemented reports whether err is the store's refusal of a condition
// or header it does not support.
func (f *FileSystem) isUnimplemented(err error) bool {
	return f.code(err) == gcerrors.Unimplemented
}

// isRangePastEnd reports whether err is the store's refusal of a read whose
// range starts at or past the end of the object (ErrorCoder.RangePastEnd).
func (f *FileSystem) isRangePastEnd(err error) bool {
	return err != nil && f.coder != nil && f.coder.RangePastEnd(err)
}

// invalid returns a *fs.PathError wrapping fs.ErrInvalid with a reason.
func invalid(op string, p vfs.Path, format string, args ...any) error {
	return vfs.NewPathError(op, p, fmt.Errorf("%w: "+format, append([]any{fs.ErrInvalid}, args...)...))
}

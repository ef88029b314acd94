package s3

import (
	"errors"

	"github.com/aws/smithy-go"
	"gocloud.dev/gcerrors"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/httpcode"
)

// errorCoder classifies S3's answers for blobfs (blobfs.ErrorCoder): those
// of the store's own requests, which the driver never saw, and those the
// driver leaves gcerrors.Unknown.
type errorCoder struct{}

var (
	_ blobfs.ErrorCoder = (*exactStore)(nil)
	_ blobfs.ErrorCoder = escapingStore{}
)

// ErrorCode returns the code of an S3 answer: NotImplemented (a header or
// condition the endpoint does not support) is gcerrors.Unimplemented, and
// otherwise the HTTP status decides (404, 403, 412, 501).
func (errorCoder) ErrorCode(err error) gcerrors.ErrorCode {
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "NotImplemented" {
		return gcerrors.Unimplemented
	}
	return httpcode.Code(httpcode.Status(err))
}

// RangePastEnd reports whether err is S3's InvalidRange (HTTP 416): a GET
// whose range starts at or past the end of the object.
func (errorCoder) RangePastEnd(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "InvalidRange" {
		return true
	}
	return httpcode.RangePastEnd(httpcode.Status(err))
}

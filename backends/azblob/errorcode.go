package azblob

import (
	"errors"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"gocloud.dev/gcerrors"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/httpcode"
)

var _ blobfs.ErrorCoder = store{}

// ErrorCode classifies Azure's answers for blobfs (blobfs.ErrorCoder) by
// their HTTP status: those of the store's own requests (DeleteVersion, the
// recoverable writer's blocks), and those the driver leaves
// gcerrors.Unknown.
func (store) ErrorCode(err error) gcerrors.ErrorCode { return httpcode.Code(status(err)) }

// RangePastEnd reports whether err is Azure's InvalidRange (HTTP 416).
func (store) RangePastEnd(err error) bool {
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.ErrorCode == "InvalidRange" {
		return true
	}
	return httpcode.RangePastEnd(status(err))
}

// status returns the HTTP status of an Azure answer, or 0.
func status(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return httpcode.Status(err)
}

package gcs

import (
	"errors"

	"gocloud.dev/gcerrors"
	"google.golang.org/api/googleapi"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/httpcode"
)

var _ blobfs.ErrorCoder = store{}

// ErrorCode classifies GCS's answers for blobfs (blobfs.ErrorCoder) by their
// HTTP status: those of the store's own requests (DeleteVersion, composing),
// and those the driver leaves gcerrors.Unknown.
func (store) ErrorCode(err error) gcerrors.ErrorCode { return httpcode.Code(status(err)) }

// RangePastEnd reports whether err is GCS's 416 Range Not Satisfiable.
func (store) RangePastEnd(err error) bool { return httpcode.RangePastEnd(status(err)) }

// status returns the HTTP status of a GCS answer, or 0.
func status(err error) int {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return httpcode.Status(err)
}

// Package httpcode classifies the HTTP answers of object stores as gocloud
// error codes, for the blobfs.ErrorCoder of the s3, gcs and azblob backends:
// blobfs itself knows no store's statuses.
package httpcode

import (
	"errors"
	"net/http"

	"gocloud.dev/gcerrors"
)

// Status returns the HTTP status that err carries through an
// HTTPStatusCode method (the AWS SDK's response errors,
// plainkey.StatusError), or 0.
func Status(err error) int {
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) {
		return status.HTTPStatusCode()
	}
	return 0
}

// Code returns the gocloud error code of an HTTP status: 404 Not Found is
// gcerrors.NotFound, 403 Forbidden gcerrors.PermissionDenied, 412
// Precondition Failed gcerrors.FailedPrecondition, 501 Not Implemented
// gcerrors.Unimplemented, and every other status gcerrors.Unknown.
func Code(status int) gcerrors.ErrorCode {
	switch status {
	case http.StatusNotFound:
		return gcerrors.NotFound
	case http.StatusForbidden:
		return gcerrors.PermissionDenied
	case http.StatusPreconditionFailed:
		return gcerrors.FailedPrecondition
	case http.StatusNotImplemented:
		return gcerrors.Unimplemented
	}
	return gcerrors.Unknown
}

// RangePastEnd reports whether status is 416 Range Not Satisfiable, a
// store's answer to a read whose range starts at or past the object's end.
func RangePastEnd(status int) bool { return status == http.StatusRequestedRangeNotSatisfiable }

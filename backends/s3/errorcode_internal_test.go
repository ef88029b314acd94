package s3

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/stretchr/testify/assert"
	"gocloud.dev/gcerrors"
)

// responseError is an S3 answer as the SDK returns it: an API error code
// inside a response error with the HTTP status.
func responseError(status int, code string) error {
	var err error = errors.New("no API error")
	if code != "" {
		err = &smithy.GenericAPIError{Code: code, Message: "m"}
	}
	return fmt.Errorf("operation: %w", &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}}, Err: err}})
}

func TestErrorCoderMapsS3Answers(t *testing.T) {
	var c errorCoder
	for _, tc := range []struct {
		err  error
		want gcerrors.ErrorCode
	}{
		{responseError(404, ""), gcerrors.NotFound},
		{responseError(403, "AccessDenied"), gcerrors.PermissionDenied},
		{responseError(412, "PreconditionFailed"), gcerrors.FailedPrecondition},
		{responseError(501, "NotImplemented"), gcerrors.Unimplemented},
		{&smithy.GenericAPIError{Code: "NotImplemented"}, gcerrors.Unimplemented},
		{responseError(500, "InternalError"), gcerrors.Unknown},
		{errors.New("plain"), gcerrors.Unknown},
	} {
		assert.Equal(t, tc.want, c.ErrorCode(tc.err), "%v", tc.err)
	}
	assert.True(t, c.RangePastEnd(responseError(416, "InvalidRange")))
	assert.True(t, c.RangePastEnd(&smithy.GenericAPIError{Code: "InvalidRange"}))
	assert.True(t, c.RangePastEnd(responseError(416, "")))
	assert.False(t, c.RangePastEnd(responseError(404, "NoSuchKey")))
}

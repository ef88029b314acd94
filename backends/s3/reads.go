package s3

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
)

// conditionalReader makes the GETs of one stream conditional on the version
// its first response came from (blobfs.ConditionalReader), so that a stream
// never returns bytes of two versions of an object.
type conditionalReader struct{}

// ReadETag returns the ETag of the GetObject response behind r.
func (conditionalReader) ReadETag(r *blob.Reader) string {
	var out awss3.GetObjectOutput
	if !r.As(&out) {
		return ""
	}
	return aws.ToString(out.ETag)
}

// BeforeReadIfMatch adds If-Match: etag to the GET; S3 answers a replaced
// object with 412 Precondition Failed.
func (conditionalReader) BeforeReadIfMatch(etag string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var in *awss3.GetObjectInput
		if !as(&in) {
			return errors.New("s3: the S3 driver did not expose its GET request, so the read cannot be conditional on the object's version")
		}
		in.IfMatch = aws.String(etag)
		return nil
	}
}

package s3

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
)

// conditionalReader makes the GETs of one stream conditional on the ETag its
// first response had (blobfs.ConditionalReader), so that a stream never
// returns bytes of two versions of an object.
type conditionalReader struct{}

// ReadVersion returns the ETag of the GetObject response behind r.
func (conditionalReader) ReadVersion(r *blob.Reader) string {
	var out awss3.GetObjectOutput
	if !r.As(&out) {
		return ""
	}
	return aws.ToString(out.ETag)
}

// HeadVersion returns the ETag a HEAD answered with.
func (conditionalReader) HeadVersion(a *blob.Attributes) string { return a.ETag }

// BeforeReadVersion adds If-Match: etag to the GET; S3 answers a replaced
// object with 412 Precondition Failed.
func (conditionalReader) BeforeReadVersion(etag string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var in *awss3.GetObjectInput
		if !as(&in) {
			return errors.New("s3: the S3 driver did not expose its GET request, so the read cannot be conditional on the object's version")
		}
		in.IfMatch = aws.String(etag)
		return nil
	}
}

// DeleteVersion deletes key only if its ETag is still etag: DeleteObject
// with If-Match, which S3 answers with 412 Precondition Failed for another
// version. A store that ignores the header deletes unconditionally; blobfs
// compares the version with a HEAD before it asks.
func (s *exactStore) DeleteVersion(ctx context.Context, _ *blob.Bucket, _, key, etag string) error {
	_, err := s.client.DeleteObject(ctx, &awss3.DeleteObjectInput{
		Bucket:  aws.String(s.bucket),
		Key:     aws.String(key),
		IfMatch: aws.String(etag),
	})
	return err
}

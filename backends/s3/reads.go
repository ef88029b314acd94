package s3

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/httpcode"
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
// version. A store that ignores the header deletes unconditionally; there
// (see EnforcesDeleteVersion) blobfs compares the version with a HEAD before
// it asks.
func (s *exactStore) DeleteVersion(ctx context.Context, _ *blob.Bucket, _, key, etag string) error {
	_, err := s.client.DeleteObject(ctx, &awss3.DeleteObjectInput{
		Bucket:  aws.String(s.bucket),
		Key:     aws.String(key),
		IfMatch: aws.String(etag),
	})
	return err
}

var _ blobfs.EnforcingDeleter = (*exactStore)(nil)

// deleteProbe remembers whether the server refuses a DeleteObject whose
// If-Match names another ETag.
type deleteProbe struct {
	mu       sync.Mutex
	decided  bool
	enforced bool
}

// EnforcesDeleteVersion reports whether the server enforces DeleteVersion's
// If-Match. S3-compatible servers differ (SeaweedFS refuses a wrong ETag;
// gofakes3 deletes the object anyway), so the first call asks the server: a
// DeleteObject of a fresh random key beside key (which no object has) with
// If-Match of an ETag no object has. Only a 412 Precondition Failed proves
// that the server checked the condition; any other answer (S3 may answer 204
// for a missing key) leaves blobfs's HEAD before each conditional delete in
// place. The answer is kept for the store's life; a probe that got no answer
// from the server (a network error) is tried again next time.
func (s *exactStore) EnforcesDeleteVersion(ctx context.Context, _ *blob.Bucket, _, key string) bool {
	p := &s.enforces
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.decided {
		return p.enforced
	}
	probe := key[:strings.LastIndexByte(key, '/')+1] + ".vfskit-probe-" + rand.Text()
	_, err := s.client.DeleteObject(ctx, &awss3.DeleteObjectInput{
		Bucket:  aws.String(s.bucket),
		Key:     aws.String(probe),
		IfMatch: aws.String(`"vfskit-probe-no-such-etag"`),
	})
	status := httpcode.Status(err)
	p.decided = err == nil || status != 0
	p.enforced = status == http.StatusPreconditionFailed
	return p.enforced
}

package s3

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/backends/blobfs"
)

// Store returns the blobfs.Store of an S3 bucket opened with gocloud's s3blob
// driver, whose name at the service is bucketName: it sends every key exactly
// (blobfs.ExactKeys: gocloud's driver rewrites control characters, "../" and
// "__0x41__"-looking text, so keys other clients wrote would list under names
// that reach nothing), deletes up to 1,000 keys per DeleteObjects request,
// copies conditionally with If-None-Match: * and sends the GETs of a stream
// conditional on the ETag its first response had (If-Match). With an empty bucketName keys go
// through the driver, and keys the driver would rewrite are refused. A bucket
// of another driver is an error.
func Store(bucket *blob.Bucket, bucketName string) (blobfs.Store, error) {
	var client *awss3.Client
	if bucket == nil || !bucket.As(&client) {
		return nil, errors.New("s3: the bucket is not an S3 bucket of gocloud's s3blob driver")
	}
	if bucketName == "" {
		return escapingStore{}, nil
	}
	return &exactStore{client: client, bucket: bucketName}, nil
}

func init() {
	// blobfs.URLFactory on s3:// bucket URLs: the bucket is the URL's host.
	_ = blobfs.RegisterStore("s3", urlStore)
}

// escapingStore is an S3 bucket whose keys go through the driver's escaping.
type escapingStore struct {
	conditionalCopier
	conditionalReader
	errorCoder
}

// CheckKey refuses keys the driver would rewrite.
func (escapingStore) CheckKey(k string, _ bool) error {
	if needsDriverEscaping(k) {
		return fmt.Errorf("object key %q would be rewritten by the S3 driver (give the bucket's name to s3.Store to send keys exactly)", k)
	}
	return nil
}

// needsDriverEscaping reports whether s3blob would (or might) rewrite key k
// before sending it: control characters, "../", text that looks like its hex
// escapes.
func needsDriverEscaping(k string) bool {
	for _, r := range k {
		if r < 32 {
			return true
		}
	}
	return strings.Contains(k, "../") || strings.Contains(k, "__0x")
}

// conditionalCopier makes a CopyObject conditional (blobfs.ConditionalCopier).
type conditionalCopier struct{}

// BeforeCopyNew adds If-None-Match: * and the write id to the copy.
func (conditionalCopier) BeforeCopyNew(id, contentType string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var in *awss3.CopyObjectInput
		if !as(&in) {
			return errors.New("s3: the S3 driver did not expose its copy request, so the copy cannot be conditional")
		}
		in.IfNoneMatch = aws.String("*")
		in.MetadataDirective = s3types.MetadataDirectiveReplace
		in.Metadata = map[string]string{blobfs.WriteIDMetadata: id}
		in.ContentType = aws.String(contentType)
		return nil
	}
}

// BeforeCopyFrom adds x-amz-copy-source-if-match: etag to the copy: S3
// answers a source at another version with 412 Precondition Failed.
func (conditionalCopier) BeforeCopyFrom(etag string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var in *awss3.CopyObjectInput
		if !as(&in) {
			return errors.New("s3: the S3 driver did not expose its copy request, so the copy cannot be conditional on the source's version")
		}
		in.CopySourceIfMatch = aws.String(etag)
		return nil
	}
}

// exactStore sends every key exactly with the bucket's S3 client.
type exactStore struct {
	conditionalCopier
	conditionalReader
	errorCoder
	client *awss3.Client
	bucket string
	// refuseBackslash makes CheckKey refuse keys holding '\' (s3.New on an
	// endpoint other than AWS's, unless Options.AllowBackslash).
	refuseBackslash bool
	// enforces is what the probe of EnforcesDeleteVersion found.
	enforces deleteProbe
}

var (
	_ blobfs.ExactKeys               = (*exactStore)(nil)
	_ blobfs.BatchDeleter            = (*exactStore)(nil)
	_ blobfs.ConditionalCopier       = (*exactStore)(nil)
	_ blobfs.ConditionalCopier       = escapingStore{}
	_ blobfs.SourceConditionalCopier = (*exactStore)(nil)
	_ blobfs.SourceConditionalCopier = escapingStore{}
	_ blobfs.ConditionalReader       = (*exactStore)(nil)
	_ blobfs.ConditionalReader       = escapingStore{}
)

// CheckKey refuses '\' where the endpoint turns it into '/'
// (refuseBackslash), and control characters in keys to be written: S3 stores
// them but cannot return them in a listing (XML).
func (s *exactStore) CheckKey(k string, write bool) error {
	if s.refuseBackslash && strings.Contains(k, `\`) {
		return fmt.Errorf("object key %q holds '\\', which this endpoint turns into '/', so it would name another object (on an endpoint that keeps '\\', such as AWS S3, set s3.Options.AllowBackslash)", k)
	}
	if !write {
		return nil
	}
	if i := strings.IndexFunc(k, func(r rune) bool { return r < 32 || r == 0x7f }); i >= 0 {
		return fmt.Errorf("object key %q holds the control character %U, which S3 can store but not list (its listings are XML); choose another name", k, k[i])
	}
	return nil
}

// BeforeList sets the listing prefix exactly.
func (*exactStore) BeforeList(prefix string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var in *awss3.ListObjectsV2Input
		var legacy *awss3.ListObjectsInput
		switch {
		case as(&in):
			in.Prefix = aws.String(prefix)
		case as(&legacy):
			legacy.Prefix = aws.String(prefix)
		default:
			return errors.New("s3: the S3 driver did not expose its listing request, so the prefix cannot be sent exactly")
		}
		return nil
	}
}

// ListedKey returns the key S3 listed.
func (*exactStore) ListedKey(o *blob.ListObject) (string, error) {
	var obj s3types.Object
	var dir s3types.CommonPrefix
	switch {
	case o.As(&obj):
		return aws.ToString(obj.Key), nil
	case o.As(&dir):
		return aws.ToString(dir.Prefix), nil
	}
	return "", errors.New("s3: the S3 driver did not expose a listed key, so it cannot be named exactly")
}

// Attributes HEADs the exact key.
func (s *exactStore) Attributes(ctx context.Context, k string) (*blob.Attributes, error) {
	out, err := s.client.HeadObject(ctx, &awss3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(k)})
	if err != nil {
		return nil, err
	}
	return &blob.Attributes{
		Size:     aws.ToInt64(out.ContentLength),
		ModTime:  aws.ToTime(out.LastModified),
		ETag:     aws.ToString(out.ETag),
		Metadata: out.Metadata,

		ContentType:     aws.ToString(out.ContentType),
		ContentEncoding: aws.ToString(out.ContentEncoding),
		CacheControl:    aws.ToString(out.CacheControl),
	}, nil
}

// BeforeRead sets the GET's key exactly.
func (*exactStore) BeforeRead(k string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var in *awss3.GetObjectInput
		if !as(&in) {
			return errors.New("s3: the S3 driver did not expose its GET request, so the key cannot be sent exactly")
		}
		in.Key = aws.String(k)
		return nil
	}
}

// BeforeWrite sets the upload's key exactly.
func (*exactStore) BeforeWrite(k string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var in *transfermanager.UploadObjectInput
		if !as(&in) {
			return errors.New("s3: the S3 driver did not expose its upload request, so the key cannot be sent exactly")
		}
		in.Key = aws.String(k)
		return nil
	}
}

// BeforeCopy sets the copy's destination key and source exactly, the source
// with every byte but unreserved characters and '/' percent-encoded (the
// driver's query escaping, ' ' as '+', is decoded wrongly by some
// S3-compatible stores: SeaweedFS, gofakes3).
func (s *exactStore) BeforeCopy(dst, src string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var in *awss3.CopyObjectInput
		if !as(&in) {
			return errors.New("s3: the S3 driver did not expose its copy request, so the keys cannot be sent exactly")
		}
		in.Key = aws.String(dst)
		in.CopySource = aws.String(copySource(s.bucket + "/" + src))
		return nil
	}
}

// DeleteBatch sends one DeleteObjects request (quiet mode) and reports the keys
// S3 could not delete.
func (s *exactStore) DeleteBatch(ctx context.Context, keys []string) error {
	ids := make([]s3types.ObjectIdentifier, len(keys))
	for i, k := range keys {
		ids[i] = s3types.ObjectIdentifier{Key: aws.String(k)}
	}
	out, err := s.client.DeleteObjects(ctx, &awss3.DeleteObjectsInput{
		Bucket: aws.String(s.bucket),
		Delete: &s3types.Delete{Objects: ids, Quiet: aws.Bool(true)},
	})
	if err != nil {
		return err
	}
	if len(out.Errors) > 0 {
		e := out.Errors[0]
		return fmt.Errorf("DeleteObjects could not delete %d of %d keys; first: key %q: %s: %s",
			len(out.Errors), len(keys), aws.ToString(e.Key), aws.ToString(e.Code), aws.ToString(e.Message))
	}
	return nil
}

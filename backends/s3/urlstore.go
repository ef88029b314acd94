package s3

import (
	"fmt"
	"io/fs"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/backends/blobfs"
)

// clientParams are the query parameters of gocloud's s3blob bucket URLs that
// only configure the S3 client the driver opens (gocloud.dev/aws's
// V2ConfigFromURLParams and s3blob's own client options): the uploads and
// listings sent with that same client honour them as the driver's do.
var clientParams = map[string]bool{
	"region": true, "endpoint": true, "profile": true, "hostname_immutable": true,
	"dualstack": true, "fips": true, "rate_limiter_capacity": true, "anonymous": true,
	"role": true, "role_session_name": true, "role_external_id": true, "role_duration": true,
	"web_identity_token_file": true, "request_checksum_calculation": true,
	"response_checksum_validation": true, "awssdk": true,
	"accelerate": true, "use_path_style": true, "s3ForcePathStyle": true, "disable_https": true,
}

// urlStore is the Store of an s3:// bucket that blobfs.URLFactory opened
// from u with gocloud's s3blob driver. Like the file systems of New and
// Factory, it uploads (blobfs.Uploader: one PUT for a file below the part
// size, memory bounded by the part buffers) and lists (blobfs.Lister) with
// the bucket's client itself, when it can honour every query parameter of u:
// those that configure the client (clientParams), and ssetype and kmskeyid,
// the server-side encryption that it asks for on every PutObject and
// CreateMultipartUpload as the driver does. With any other parameter (one a
// later gocloud may add), uploads and listings go through the driver, which
// knows it; keys are exact either way (Store).
func urlStore(b *blob.Bucket, u *url.URL) (blobfs.Store, error) {
	s, err := Store(b, u.Host)
	if err != nil {
		return nil, err
	}
	exact, ok := s.(*exactStore)
	if !ok {
		return s, nil
	}
	cs := &clientStore{exactStore: exact, partSize: DefaultPartSize, concurrency: DefaultConcurrency}
	for k, vs := range u.Query() {
		v := vs[0] // as gocloud reads them
		switch {
		case k == "ssetype":
			if cs.sse, err = encryptionType(v); err != nil {
				return nil, err
			}
		case k == "kmskeyid":
			cs.kmsKeyID = v
		case !clientParams[k]:
			return exact, nil
		}
	}
	if exact.client.Options().RequestChecksumCalculation != aws.RequestChecksumCalculationWhenRequired {
		cs.checksum = s3types.ChecksumAlgorithmCrc32
	}
	return cs, nil
}

// encryptionType returns the server-side encryption an ssetype query
// parameter names, in any case, as gocloud's s3blob reads it.
func encryptionType(v string) (s3types.ServerSideEncryption, error) {
	for _, t := range s3types.ServerSideEncryptionAes256.Values() {
		if strings.EqualFold(string(t), v) {
			return t, nil
		}
	}
	return "", fmt.Errorf("s3: %w: ssetype=%q in the bucket URL is not a server-side encryption (want one of %v)", fs.ErrInvalid, v, s3types.ServerSideEncryptionAes256.Values())
}

package s3

import (
	"io/fs"
	"net/url"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob/s3blob"

	"github.com/vfskit/vfskit/backends/blobfs"
)

// TestURLStoreChoosesTheUploader: a bucket URL whose parameters the own
// uploader and lister honour gets them, with its encryption; a parameter
// they do not know leaves writes and listings to the driver; a bad ssetype
// is refused, naming it.
func TestURLStoreChoosesTheUploader(t *testing.T) {
	client := awss3.New(awss3.Options{Region: "us-east-1", RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired})
	bkt, err := s3blob.OpenBucket(t.Context(), client, "b", nil)
	require.NoError(t, err)
	defer bkt.Close()
	open := func(raw string) (blobfs.Store, error) {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		return urlStore(bkt, u)
	}

	s, err := open("s3://b?region=eu-west-1&endpoint=http://127.0.0.1:1&use_path_style=true&ssetype=aws:KMS&kmskeyid=k1")
	require.NoError(t, err)
	cs, ok := s.(*clientStore)
	require.True(t, ok, "%T", s)
	assert.Implements(t, (*blobfs.Uploader)(nil), s)
	assert.Implements(t, (*blobfs.Lister)(nil), s)
	sse, kms := cs.encryption()
	assert.Equal(t, s3types.ServerSideEncryptionAwsKms, sse)
	assert.Equal(t, "k1", aws.ToString(kms))
	assert.Empty(t, cs.checksum, "checksums only where required, as the client")

	s, err = open("s3://b")
	require.NoError(t, err)
	cs = s.(*clientStore)
	sse, kms = cs.encryption()
	assert.Empty(t, sse)
	assert.Nil(t, kms)

	s, err = open("s3://b?region=x&storage_class=GLACIER")
	require.NoError(t, err)
	_, ok = s.(*exactStore)
	assert.True(t, ok, "an unknown parameter: the driver writes (%T)", s)

	_, err = open("s3://b?ssetype=rot13")
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.ErrorContains(t, err, `ssetype="rot13"`)
}

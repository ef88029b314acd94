package s3

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/backends/blobfs"
)

var _ blobfs.Lister = (*clientStore)(nil)

// ListPage sends one ListObjectsV2 with the prefix and delimiter exactly and
// returns its objects and common prefixes, merged in key order, named by the
// keys S3 returned.
func (s *clientStore) ListPage(ctx context.Context, prefix, delimiter string, token []byte, n int) ([]*blob.ListObject, []byte, error) {
	in := &awss3.ListObjectsV2Input{Bucket: aws.String(s.bucket), MaxKeys: aws.Int32(int32(n))}
	if prefix != "" {
		in.Prefix = aws.String(prefix)
	}
	if delimiter != "" {
		in.Delimiter = aws.String(delimiter)
	}
	if len(token) > 0 {
		in.ContinuationToken = aws.String(string(token))
	}
	out, err := s.client.ListObjectsV2(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	objs := make([]blob.ListObject, len(out.Contents)+len(out.CommonPrefixes))
	page := make([]*blob.ListObject, len(objs))
	for i := range out.Contents {
		o := &out.Contents[i]
		objs[i] = blob.ListObject{Key: aws.ToString(o.Key), ModTime: aws.ToTime(o.LastModified), Size: aws.ToInt64(o.Size)}
		page[i] = &objs[i]
	}
	for i, p := range out.CommonPrefixes {
		j := len(out.Contents) + i
		objs[j] = blob.ListObject{Key: aws.ToString(p.Prefix), IsDir: true}
		page[j] = &objs[j]
	}
	if len(out.Contents) > 0 && len(out.CommonPrefixes) > 0 {
		slices.SortFunc(page, func(a, b *blob.ListObject) int { return strings.Compare(a.Key, b.Key) })
	}
	var next []byte
	if out.NextContinuationToken != nil {
		next = []byte(*out.NextContinuationToken)
	}
	return page, next, nil
}

package s3

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
)

// sweepingClient is the S3 client uploads are sent with. CreateMultipartUpload
// is not idempotent: when an attempt's answer is lost, the SDK's retry starts a
// second upload and the first, whose id the client never learned, would stay
// on the server forever. So when a CreateMultipartUpload needed more than one
// attempt, the uploads of the same key that have no part and were initiated
// within the call's duration before this one are aborted: the earlier attempts'
// orphans. (A concurrent writer of the same key whose upload started in that
// window and has sent no part yet would lose its upload and fail; nothing is
// published wrongly.)
type sweepingClient struct{ *awss3.Client }

// precision is the coarsest timestamp precision of a store's listing.
const precision = time.Second

// CreateMultipartUpload starts an upload and sweeps its orphans.
func (c sweepingClient) CreateMultipartUpload(ctx context.Context, in *awss3.CreateMultipartUploadInput, optFns ...func(*awss3.Options)) (*awss3.CreateMultipartUploadOutput, error) {
	start := time.Now()
	out, err := c.Client.CreateMultipartUpload(ctx, in, optFns...)
	if err != nil {
		return out, err
	}
	if res, ok := retry.GetAttemptResults(out.ResultMetadata); ok && len(res.Results) > 1 {
		c.sweep(ctx, in, aws.ToString(out.UploadId), time.Since(start)+precision)
	}
	return out, nil
}

// sweep aborts the part-less uploads of in.Key initiated at most window before
// the upload ours. Errors leave the orphans in place.
func (c sweepingClient) sweep(ctx context.Context, in *awss3.CreateMultipartUploadInput, ours string, window time.Duration) {
	list, err := c.ListMultipartUploads(ctx, &awss3.ListMultipartUploadsInput{Bucket: in.Bucket, Prefix: in.Key})
	if err != nil {
		return
	}
	var mine time.Time
	for _, u := range list.Uploads {
		if aws.ToString(u.UploadId) == ours {
			mine = aws.ToTime(u.Initiated)
		}
	}
	if mine.IsZero() {
		return
	}
	for _, u := range list.Uploads {
		id, at := aws.ToString(u.UploadId), aws.ToTime(u.Initiated)
		if id == ours || aws.ToString(u.Key) != aws.ToString(in.Key) || at.After(mine) || mine.Sub(at) > window {
			continue
		}
		parts, err := c.ListParts(ctx, &awss3.ListPartsInput{Bucket: in.Bucket, Key: in.Key, UploadId: u.UploadId, MaxParts: aws.Int32(1)})
		if err != nil || len(parts.Parts) > 0 {
			continue
		}
		_, _ = c.AbortMultipartUpload(ctx, &awss3.AbortMultipartUploadInput{Bucket: in.Bucket, Key: in.Key, UploadId: u.UploadId})
	}
}

package blobfs

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// MaxDeleteBatch is the most keys one S3 DeleteObjects request takes.
const MaxDeleteBatch = 1000

// fallbackDeleteConcurrency is how many single-key deletes run at once on a
// bucket without batch deletes.
const fallbackDeleteConcurrency = 8

// Delete removes the object at p or, when p is a directory, everything under it.
//
// Non-recursive: it HEADs p and deletes the object if there is one; otherwise it
// lists at most two keys under "p/" and fails with vfs.ErrDirNotEmpty (deleting
// nothing) when there is any key other than a directory marker "p/".
//
// Recursive: it streams the listing of "p/" page by page into batched deletes
// (S3 DeleteObjects, up to 1,000 keys a request, when Options.BucketName is set
// on an S3 bucket; single deletes otherwise) and deletes the object p itself in
// the last batch. Deleting the whole bucket recursively ("/") is refused with
// fs.ErrInvalid.
//
// A missing path is not an error.
func (f *FileSystem) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	q, k, err := f.qualifiedKey("delete", p)
	if err != nil {
		return err
	}
	if recursive {
		if k == "" {
			return invalid("delete", q, "refusing to delete the whole bucket recursively")
		}
		return f.pathError("delete", q, f.deleteTree(ctx, k))
	}
	if k != "" {
		_, found, err := f.statObject(ctx, q, k)
		if err != nil {
			return f.pathError("delete", q, err)
		}
		if found {
			return f.pathError("delete", q, f.deleteKeys(ctx, []string{k}))
		}
	}
	prefix := dirPrefix(k)
	objs, _, err := f.listPage(ctx, blob.FirstPageToken, 2, prefix, "")
	if err != nil {
		return f.pathError("delete", q, err)
	}
	var marker bool
	for _, o := range objs {
		if o.Key != prefix || k == "" {
			return vfs.NewPathError("delete", q, vfs.ErrDirNotEmpty)
		}
		marker = true
	}
	if marker {
		return f.pathError("delete", q, f.deleteKeys(ctx, []string{prefix}))
	}
	return nil
}

// deleteTree deletes every key under "k/" and the key k, streaming the listing
// into batches of at most MaxDeleteBatch keys.
func (f *FileSystem) deleteTree(ctx context.Context, k string) error {
	batch := make([]string, 0, MaxDeleteBatch)
	flush := func() error {
		err := f.deleteKeys(ctx, batch)
		batch = batch[:0]
		return err
	}
	err := f.listPages(ctx, dirPrefix(k), "", func(objs []*blob.ListObject) error {
		for _, o := range objs {
			batch = append(batch, o.Key)
			if len(batch) == MaxDeleteBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	batch = append(batch, k)
	return flush()
}

// deleteKeys deletes keys (missing keys are fine) with as few requests as the
// bucket allows.
func (f *FileSystem) deleteKeys(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	if f.s3 == nil {
		return f.deleteEach(ctx, keys)
	}
	for len(keys) > 0 {
		n := min(len(keys), MaxDeleteBatch)
		if err := deleteObjects(ctx, f.s3, f.opts.BucketName, keys[:n]); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

// deleteObjects sends one S3 DeleteObjects request (quiet mode) and reports the
// keys S3 could not delete.
func deleteObjects(ctx context.Context, client *s3.Client, bucket string, keys []string) error {
	ids := make([]s3types.ObjectIdentifier, len(keys))
	for i, k := range keys {
		ids[i] = s3types.ObjectIdentifier{Key: aws.String(k)}
	}
	out, err := client.DeleteObjects(ctx, &s3.DeleteObjectsInput{
		Bucket: aws.String(bucket),
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

// deleteEach deletes keys one request each, a few at a time, ignoring missing keys.
func (f *FileSystem) deleteEach(ctx context.Context, keys []string) error {
	return forEachKey(keys, fallbackDeleteConcurrency, func(k string) error {
		if err := f.b.Delete(ctx, k); err != nil && !isNotFound(err) {
			return err
		}
		return nil
	})
}

package blobfs

import (
	"context"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// MaxDeleteBatch is the most keys one batch delete takes (S3 DeleteObjects'
// limit): the size of BatchDeleter.DeleteBatch's batches.
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
// (up to 1,000 keys a request when Options.Store is a BatchDeleter, as S3
// DeleteObjects is; single deletes otherwise) and deletes the object p itself in
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
	batcher, ok := f.opts.Store.(BatchDeleter)
	if !ok {
		return f.deleteEach(ctx, keys)
	}
	for len(keys) > 0 {
		n := min(len(keys), MaxDeleteBatch)
		if err := batcher.DeleteBatch(ctx, keys[:n]); err != nil {
			return err
		}
		keys = keys[n:]
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

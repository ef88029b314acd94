package blobfs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"

	"gocloud.dev/blob"
)

// WriteIDMetadata is the metadata key (x-amz-meta-vfskit-write-id on S3) under
// which every object that Create or a conditional copy publishes carries the
// random id of the write that made it. When a write's answer is lost and its
// retry meets the object (a failed precondition after If-None-Match: *, or
// NoSuchUpload for a multipart upload already completed), one HEAD tells
// whether the object there is this write's: then the write succeeded; if not,
// someone else's object is there (fs.ErrExist under NoOverwrite).
const WriteIDMetadata = "vfskit-write-id"

// newWriteID returns 128 random bits in hex.
func newWriteID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// writtenBy reports whether the object k exists and was published by the write
// with id: one HEAD. An error (the store unreachable) counts as "no".
func (f *FileSystem) writtenBy(ctx context.Context, k, id string) bool {
	attrs, err := f.attributes(ctx, k)
	return err == nil && attrs.Metadata[WriteIDMetadata] == id
}

// copyNew copies the object ks to kd unless kd exists, atomically against other
// writers of kd: a conditional server-side copy when Options.Store is a
// ConditionalCopier (S3 CopyObject with If-None-Match: *), else a read of ks
// streamed into a conditional write of kd. An existing kd fails with
// gcerrors.FailedPrecondition. A copy whose answer was lost and whose retry met
// its own object succeeds (see WriteIDMetadata). On a store that refuses the
// condition (gcerrors.Unimplemented, see ErrorCoder) the copy is unconditional.
func (f *FileSystem) copyNew(ctx context.Context, kd, ks string) error {
	id := newWriteID()
	var err error
	if cc, ok := f.opts.Store.(ConditionalCopier); ok {
		err = f.copy(ctx, kd, ks, cc.BeforeCopyNew(id, contentType))
		if f.isUnimplemented(err) {
			// A store that refuses conditional copies: copy unconditionally.
			// Racing renames onto one destination then have the last writer's bytes.
			return f.copy(ctx, kd, ks, nil)
		}
	} else {
		err = f.streamCopyNew(ctx, kd, ks, id)
	}
	if err != nil && ctx.Err() == nil && f.writtenBy(ctx, kd, id) {
		return nil
	}
	return err
}

// streamCopyNew copies ks to kd through this process with a conditional write.
func (f *FileSystem) streamCopyNew(ctx context.Context, kd, ks, id string) (err error) {
	r, err := f.rangeReader(ctx, ks, 0, -1)
	if err != nil {
		return err
	}
	defer r.Close()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := f.newWriter(wctx, kd, true, id)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		cancel()
		_ = w.Close()
		return fmt.Errorf("copy %s to %s: %w", ks, kd, err)
	}
	return w.Close()
}

// contentType is the Content-Type of every object blobfs writes.
const contentType = "application/octet-stream"

// newWriter returns the writer of the object k, conditional when ifNotExist,
// tagged with the write's id: the Store's Upload when it is an Uploader, else
// the driver's blob.Writer. Cancelling ctx before Close publishes nothing.
func (f *FileSystem) newWriter(ctx context.Context, k string, ifNotExist bool, id string) (Upload, error) {
	return f.newWriterWith(ctx, k, ifNotExist, map[string]string{WriteIDMetadata: id})
}

// newWriterWith is newWriter with the object's metadata md.
func (f *FileSystem) newWriterWith(ctx context.Context, k string, ifNotExist bool, md map[string]string) (Upload, error) {
	if up, ok := f.opts.Store.(Uploader); ok {
		return up.NewUpload(ctx, k, UploadOptions{ContentType: contentType, Metadata: md, IfNotExist: ifNotExist,
			PartSize: f.opts.PartSize, Concurrency: f.opts.Concurrency})
	}
	return f.b.NewWriter(ctx, k, &blob.WriterOptions{
		ContentType:    contentType,
		BufferSize:     f.opts.PartSize,
		MaxConcurrency: f.opts.Concurrency,
		IfNotExist:     ifNotExist,
		BeforeWrite:    f.beforeWrite(k),
		Metadata:       md,
	})
}

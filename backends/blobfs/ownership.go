package blobfs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"path"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// WriteIDMetadata is the metadata key (x-amz-meta-vfskitwriteid on S3,
// x-ms-meta-vfskitwriteid on Azure) under which every object that Create or a
// conditional copy publishes carries the random id of the write that made it.
// When a write's answer is lost and its retry meets the object (a failed
// precondition after If-None-Match: *, or NoSuchUpload for a multipart upload
// already completed), one HEAD tells whether the object there is this
// write's: then the write succeeded; if not, someone else's object is there
// (fs.ErrExist under NoOverwrite). The key is letters only, so that it reads
// the same on every store (Azure's metadata keys are C# identifiers).
const WriteIDMetadata = "vfskitwriteid"

// LegacyWriteIDMetadata is the key of the write id on objects that earlier
// versions of vfskit wrote ("vfskit__0x2d__write__0x2d__id" on Azure, which
// gocloud's driver reads back as this key); WriteID reads it too.
const LegacyWriteIDMetadata = "vfskit-write-id"

// WriteID returns the write id that the object metadata md carries, under
// WriteIDMetadata or LegacyWriteIDMetadata; "" when none.
func WriteID(md map[string]string) string {
	if id, ok := md[WriteIDMetadata]; ok {
		return id
	}
	return md[LegacyWriteIDMetadata]
}

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
	return err == nil && WriteID(attrs.Metadata) == id
}

// copyNew copies the object ks to kd unless kd exists, atomically against other
// writers of kd: a conditional server-side copy when Options.Store is a
// ConditionalCopier (S3 CopyObject with If-None-Match: *), else a read of ks
// streamed into a conditional write of kd. An existing kd fails with
// gcerrors.FailedPrecondition. A copy whose answer was lost and whose retry met
// its own object succeeds (see WriteIDMetadata). On a store that refuses the
// condition (gcerrors.Unimplemented, see ErrorCoder) the copy is unconditional.
func (f *FileSystem) copyNew(ctx context.Context, kd, ks string) error {
	return f.copyNewAt(ctx, kd, ks, version{})
}

// copyNewAt is copyNew of the version v of ks (any version when v is zero).
// The server-side copy is conditional on v's id when the Store is a
// SourceConditionalCopier; a streamed copy reads conditionally on it (a
// ConditionalReader Store) and compares the version it reads with v before
// it writes a byte. When ks is not at v, nothing is written and the error
// wraps vfs.ErrChanged. A store that refuses the conditions
// (gcerrors.Unimplemented) gets an unconditional copy, of whatever version ks
// is at: the caller's conditional delete at v then still keeps a newer source.
func (f *FileSystem) copyNewAt(ctx context.Context, kd, ks string, v version) error {
	id := newWriteID()
	var err error
	if cc, ok := f.opts.Store.(ConditionalCopier); ok {
		hook := cc.BeforeCopyNew(id, contentTypeOf(kd))
		if sc, ok := f.opts.Store.(SourceConditionalCopier); ok && v.id != "" {
			hook = chain(hook, sc.BeforeCopyFrom(v.id))
		}
		err = f.copy(ctx, kd, ks, hook)
		switch {
		case f.isUnimplemented(err):
			// A store that refuses conditional copies: copy unconditionally.
			// Racing renames onto one destination then have the last writer's bytes.
			return f.copy(ctx, kd, ks, nil)
		case v != (version{}) && (f.isPreconditionFailed(err) || f.isNotFound(err)) && f.sourceMoved(ctx, ks, v):
			return fmt.Errorf("copy %s to %s: %w", ks, kd, vfs.ErrChanged)
		}
	} else {
		err = f.streamCopyNew(ctx, kd, ks, id, v)
	}
	if err != nil && !errors.Is(err, vfs.ErrChanged) && ctx.Err() == nil && f.writtenBy(ctx, kd, id) {
		return nil
	}
	return err
}

// sourceMoved reports whether the object ks is no longer at version v (gone,
// or another version): one HEAD. An error counts as "no".
func (f *FileSystem) sourceMoved(ctx context.Context, ks string, v version) bool {
	attrs, err := f.attributes(ctx, ks)
	if f.isNotFound(err) {
		return true
	}
	return err == nil && !f.headVersion(attrs).same(v)
}

// streamCopyNew copies ks (at version v, unless v is zero) to kd through this
// process with a conditional write.
func (f *FileSystem) streamCopyNew(ctx context.Context, kd, ks, id string, v version) (err error) {
	r, err := f.rangeReaderIf(ctx, ks, 0, -1, v.id)
	switch {
	case err != nil && v != (version{}) && (f.isPreconditionFailed(err) || f.isNotFound(err)):
		return fmt.Errorf("copy %s to %s: %w: %w", ks, kd, vfs.ErrChanged, err)
	case err != nil:
		return err
	}
	defer r.Close()
	if v != (version{}) && !f.readVersion(r).same(v) {
		return fmt.Errorf("copy %s to %s: %w: it is %s now, not %s", ks, kd, vfs.ErrChanged, f.readVersion(r), v)
	}
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

// contentType is the Content-Type of objects whose name has no extension
// Go's mime package knows.
const contentType = "application/octet-stream"

// contentTypeOf returns the Content-Type of the object k: the type of its
// extension as Go's mime package knows it (application/json for ".json"),
// else contentType.
func contentTypeOf(k string) string {
	if t := mime.TypeByExtension(path.Ext(k)); t != "" {
		return t
	}
	return contentType
}

// newWriter returns the writer of the object k, conditional when ifNotExist,
// tagged with the write's id: the Store's Upload when it is an Uploader, else
// the driver's blob.Writer. Cancelling ctx before Close publishes nothing.
func (f *FileSystem) newWriter(ctx context.Context, k string, ifNotExist bool, id string) (Upload, error) {
	return f.newWriterWith(ctx, k, ifNotExist, map[string]string{WriteIDMetadata: id})
}

// newWriterWith is newWriter with the object's metadata md.
func (f *FileSystem) newWriterWith(ctx context.Context, k string, ifNotExist bool, md map[string]string) (Upload, error) {
	w, _, err := f.newVersionedWriter(ctx, k, ifNotExist, md)
	return w, err
}

// newVersionedWriter is newWriterWith that also returns the function that
// tells, after the writer's Close returned nil, the version it published
// ("" when it cannot tell): the Upload's (VersionedUpload), or the Store's
// (WriteVersioner).
func (f *FileSystem) newVersionedWriter(ctx context.Context, k string, ifNotExist bool, md map[string]string) (Upload, func() string, error) {
	return f.newVersionedWriterWith(ctx, k, ifNotExist, UploadOptions{ContentType: contentTypeOf(k), Metadata: md})
}

// newVersionedWriterWith is newVersionedWriter of an object with the
// Content-Type, Content-Encoding, Cache-Control and metadata of o.
func (f *FileSystem) newVersionedWriterWith(ctx context.Context, k string, ifNotExist bool, o UploadOptions) (Upload, func() string, error) {
	md := o.Metadata
	if up, ok := f.opts.Store.(Uploader); ok {
		w, err := up.NewUpload(ctx, k, UploadOptions{ContentType: o.ContentType, ContentEncoding: o.ContentEncoding, CacheControl: o.CacheControl,
			Metadata: md, IfNotExist: ifNotExist, PartSize: f.opts.PartSize, Concurrency: f.opts.Concurrency})
		if vu, ok := w.(VersionedUpload); ok {
			return w, vu.Version, err
		}
		return w, unknownVersion, err
	}
	hook, tell := f.beforeWrite(k, ifNotExist), unknownVersion
	if wv, ok := f.opts.Store.(WriteVersioner); ok {
		var last func(func(any) bool) error
		ctx, last, tell = wv.WatchWrite(ctx)
		hook = chain(hook, last)
	}
	w, err := f.b.NewWriter(ctx, k, &blob.WriterOptions{
		ContentType:     o.ContentType,
		ContentEncoding: o.ContentEncoding,
		CacheControl:    o.CacheControl,
		BufferSize:      f.opts.PartSize,
		MaxConcurrency:  f.opts.Concurrency,
		IfNotExist:      ifNotExist,
		BeforeWrite:     hook,
		Metadata:        md,
	})
	return w, tell, err
}

// unknownVersion is the version function of a writer that cannot tell it.
func unknownVersion() string { return "" }

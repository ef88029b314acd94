package blobfs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/vfskit/vfskit/vfs"
)

// errAborted is what a stream's Close returns after Abort.
var errAborted = errors.New("write aborted: nothing was published")

// Create returns a stream that uploads to the object at p through the bucket's
// writer: it sends nothing before the first part is full or Close is called, uses
// a multipart upload above the part size (bounded memory, whatever the file
// size), and publishes the object only when Close returns nil. NoOverwrite is a
// conditional write (If-None-Match: * on S3), never a check followed by a write:
// an existing target fails with fs.ErrExist at Close. Create sends no HEAD and a
// small file costs exactly one PUT. A path that is also a directory (keys under
// "p/") is not refused, as the vfs contract allows object stores; with
// Options.Strict, Close first lists one key under "p/" and fails with
// vfs.ErrIsDir when p is a directory, publishing nothing.
//
// Cancelling ctx, calling Abort, or closing after a failed Write publishes
// nothing, and the driver aborts a multipart upload already begun.
//
// The object's Content-Type is the type of the name's extension as Go's mime
// package knows it (application/json for ".json"), else
// application/octet-stream; CreateWithAttributes gives others.
func (f *FileSystem) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.CreateWithAttributes(ctx, p, mode, vfs.Attributes{})
}

// CreateWithAttributes is Create of an object that carries a: its Content-Type (the extension's when ""),
// Content-Encoding, Cache-Control and user metadata.
func (f *FileSystem) CreateWithAttributes(ctx context.Context, p vfs.Path, mode vfs.WriteMode, a vfs.Attributes) (vfs.OutputStream, error) {
	q, err := vfs.Qualify("create", f, p)
	if err != nil {
		return nil, err
	}
	if mode != vfs.NoOverwrite && mode != vfs.Overwrite {
		return nil, invalid("create", q, "unknown write mode %d (want NoOverwrite or Overwrite)", int(mode))
	}
	k, err := f.checkNewKey("create", q)
	if err != nil {
		return nil, err
	}
	if k == "" {
		return nil, vfs.NewPathError("create", q, vfs.ErrIsDir)
	}
	if err := ctx.Err(); err != nil {
		return nil, vfs.NewPathError("create", q, err)
	}
	wctx, cancel := context.WithCancel(ctx)
	id := newWriteID()
	w, tell, err := f.newVersionedWriterWith(wctx, k, mode == vfs.NoOverwrite, uploadOptions(k, id, a))
	if err != nil {
		cancel()
		return nil, f.pathError("create", q, err)
	}
	o := &outputStream{f: f, path: q, key: k, id: id, mode: mode, ctx: ctx, w: w, cancel: cancel, tell: tell}
	// A stream whose context ends before Close aborts at once, even if Close
	// is never called: its upload goroutine ends and a multipart upload begun
	// is aborted. (There is no finalizer: a stream neither closed nor cancelled
	// holds them until Close.)
	o.unwatch = context.AfterFunc(ctx, o.abandon)
	return o, nil
}

// outputStream writes one object. It implements vfs.OutputStream and vfs.Aborter.
type outputStream struct {
	f      *FileSystem
	path   vfs.Path
	key    string
	id     string // the write's id (WriteIDMetadata)
	mode   vfs.WriteMode
	ctx    context.Context
	w      Upload
	cancel context.CancelFunc
	// unwatch stops the context.AfterFunc that calls abandon.
	unwatch func() bool

	// mu serializes the caller's calls with abandon, which runs on its own
	// goroutine when the context ends.
	mu        sync.Mutex
	pos       int64
	err       error // the first write error; Close then publishes nothing
	done      bool  // Close or Abort was called
	discarded bool  // discard ran
	result    error // what Close returned
	// tell returns, after the writer's Close returned nil, the version it
	// published; published is what it returned ("" unknown).
	tell      func() string
	published string
}

var (
	_ vfs.Aborter          = (*outputStream)(nil)
	_ vfs.WrittenVersioner = (*outputStream)(nil)
)

// KeepVersion does nothing: the stream keeps the version it publishes
// anyway (the store's answer to the write that published it).
func (o *outputStream) KeepVersion() {}

// Version returns the version Close published: its size and the store's ID
// of it, from the store's answer to the request that published it (an S3
// ETag, a GCS generation, an Azure ETag), without a request. It fails with
// errors.ErrUnsupported where the answer did not tell it (a bucket without
// such a Store, or a write whose answer was lost and which a retry found
// published), and with fs.ErrInvalid when Close did not publish.
func (o *outputStream) Version() (vfs.Version, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case !o.done || o.result != nil || o.discarded:
		return vfs.Version{}, vfs.NewPathError("version", o.path, fmt.Errorf("%w: the stream published nothing", fs.ErrInvalid))
	case o.published == "":
		return vfs.Version{}, vfs.NewPathError("version", o.path, fmt.Errorf("%w: the store's answer did not tell the version published", errors.ErrUnsupported))
	}
	return vfs.Version{Size: o.pos, ID: o.published}, nil
}

// Write hands p to the upload. Parts are sent as they fill; an error from an
// earlier part may show here or at Close.
func (o *outputStream) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return 0, vfs.NewPathError("write", o.path, fs.ErrClosed)
	}
	if o.err != nil {
		return 0, o.err
	}
	if err := o.ctx.Err(); err != nil {
		o.err = vfs.NewPathError("write", o.path, err)
		return 0, o.err
	}
	n, err := o.w.Write(p)
	o.pos += int64(n)
	if err != nil {
		o.err = o.f.pathError("write", o.path, err)
		return n, o.err
	}
	return n, nil
}

// Pos returns the number of bytes written.
func (o *outputStream) Pos() int64 { return o.pos }

// Flush does nothing: an object store cannot make bytes visible or durable
// before the object is published at Close.
func (o *outputStream) Flush() error { return o.closedErr("flush") }

// Sync does nothing, like Flush.
func (o *outputStream) Sync() error { return o.closedErr("sync") }

func (o *outputStream) closedErr(op string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return vfs.NewPathError(op, o.path, fs.ErrClosed)
	}
	return o.err
}

// Close publishes the object and returns nil, or returns why nothing was
// published. Calling it again returns the first result.
func (o *outputStream) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return o.result
	}
	o.done = true
	o.unwatch()
	switch {
	case o.err != nil:
		o.discard()
		o.result = o.err
	case o.ctx.Err() != nil:
		o.discard()
		o.result = vfs.NewPathError("close", o.path, fmt.Errorf("%w: %w", o.ctx.Err(), errAborted))
	default:
		if o.f.opts.Strict {
			isDir, err := o.f.hasKeysUnder(o.ctx, dirPrefix(keyOf(o.path)))
			if err != nil || isDir {
				o.discard()
				if err != nil {
					o.result = o.f.pathError("create", o.path, err)
				} else {
					o.result = vfs.NewPathError("create", o.path, vfs.ErrIsDir)
				}
				return o.result
			}
		}
		err := o.w.Close()
		o.cancel()
		switch {
		case err == nil:
			o.published = o.tell()
		case o.ctx.Err() == nil && o.f.writtenBy(o.ctx, o.key, o.id):
			// An attempt whose answer was lost published our object, and the
			// retry met it (a failed precondition under NoOverwrite, NoSuchUpload for a completed
			// multipart upload): the write succeeded.
		case o.mode == vfs.NoOverwrite && o.f.isPreconditionFailed(err):
			o.result = vfs.NewPathError("create", o.path, fmt.Errorf("%w: the object exists and the write mode is NoOverwrite", fs.ErrExist))
		case o.f.isNotFound(err):
			// GCS answers an upload into a missing bucket with a bare 404.
			berr := o.f.bucketMissing(context.WithoutCancel(o.ctx))
			o.result = o.f.pathError("close", o.path, cmp.Or(berr, err))
		default:
			o.result = o.f.pathError("close", o.path, err)
		}
	}
	return o.result
}

// Abort discards the stream: nothing is published and a multipart upload in
// progress is aborted. Close then returns an error.
func (o *outputStream) Abort() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return nil
	}
	o.done = true
	o.unwatch()
	o.discard()
	o.result = vfs.NewPathError("close", o.path, errAborted)
	return nil
}

// abandon discards a stream whose context ended before Close or Abort: the
// upload stops and its multipart upload is aborted now, not at a Close that
// may never come. Close then reports the context's error. It counts as a
// cleanup in flight (vfs.BeginCleanup) until the abort is done.
func (o *outputStream) abandon() {
	defer vfs.BeginCleanup()()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done || o.discarded {
		return
	}
	if o.err == nil {
		o.err = vfs.NewPathError("write", o.path, fmt.Errorf("%w: %w", context.Cause(o.ctx), errAborted))
	}
	o.discard()
}

// discard cancels the writer's context before closing it, so the driver gives
// up the upload instead of completing it. It runs once.
func (o *outputStream) discard() {
	if o.discarded {
		return
	}
	o.discarded = true
	o.cancel()
	_ = o.w.Close()
}

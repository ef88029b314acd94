package blobfs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// Open returns a stream over the object at p. It sends no request (with
// Options.Strict it HEADs the object, so that a missing file fails with
// fs.ErrNotExist and a directory with vfs.ErrIsDir, one more listing request,
// at Open). Seeking sends no request. Read sends one GET from the current offset and then streams; after a
// Seek the next Read sends a new GET from the new offset. ReadAt sends a ranged
// GET for exactly the bytes asked. Seeking relative to the end HEADs the object
// once to learn its size. So a reader that seeks around a large object never
// downloads the whole object.
//
// A stream reads one version of the object: the one its first response (GET
// or HEAD) came from. When another writer replaces or deletes the object
// while the stream is open, the stream's next GET fails with a *fs.PathError
// wrapping vfs.ErrChanged (and fs.ErrNotExist for a deleted object) instead
// of returning bytes of the new version: with a ConditionalReader Store (the
// s3, gcs and azblob backends) every later GET is sent conditional on the
// first response's version (If-Match: ETag; ifGenerationMatch), which the
// store refuses (gcerrors.FailedPrecondition), and each response's version is compared with it;
// with any other store each response's size and modification time are
// compared with the first one's before a byte is returned. This adds no request. Bytes the stream
// returned before the change are all of the first version.
//
// Without Options.Strict, a missing object (fs.ErrNotExist) or a directory
// (vfs.ErrIsDir) at p is reported, as an *fs.PathError naming p, by the first
// Read, ReadAt or end-relative Seek, as the vfs contract allows object stores.
func (f *FileSystem) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	q, k, err := f.qualifiedKey("open", p)
	if err != nil {
		return nil, err
	}
	if k == "" {
		return nil, vfs.NewPathError("open", q, vfs.ErrIsDir)
	}
	in := &inputStream{f: f, ctx: ctx, path: q, key: k}
	if f.opts.Strict {
		attrs, err := f.attributes(ctx, k)
		if err != nil {
			return nil, f.readError(ctx, "open", q, k, err)
		}
		in.pinHead(attrs)
	}
	return in, nil
}

// ReadFile reads the whole object at p with one GET.
func (f *FileSystem) ReadFile(ctx context.Context, p vfs.Path) ([]byte, error) {
	q, k, err := f.qualifiedKey("read", p)
	if err != nil {
		return nil, err
	}
	if k == "" {
		return nil, vfs.NewPathError("read", q, vfs.ErrIsDir)
	}
	r, err := f.rangeReader(ctx, k, 0, -1)
	if err != nil {
		return nil, f.readError(ctx, "read", q, k, err)
	}
	defer r.Close()
	// One byte more than the size, so the read that meets EOF does not grow
	// (and copy) the whole buffer.
	data := make([]byte, 0, max(r.Size(), 0)+1)
	data, err = readAllInto(data, r)
	if err != nil {
		return nil, f.pathError("read", q, err)
	}
	return data, nil
}

func readAllInto(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// readError reports a failed GET of k: when the object is missing it tells a
// directory (vfs.ErrIsDir, one more listing request) from a missing path.
func (f *FileSystem) readError(ctx context.Context, op string, q vfs.Path, k string, err error) error {
	if !f.isNotFound(err) {
		return f.pathError(op, q, err)
	}
	return f.missing(ctx, op, q, k, err)
}

// missing reports that there is no object k: vfs.ErrIsDir when keys exist under
// "k/" (one listing request), else fs.ErrNotExist, or the described cause when
// Options.DescribeError has more to say (a missing bucket).
func (f *FileSystem) missing(ctx context.Context, op string, q vfs.Path, k string, cause error) error {
	isDir, lerr := f.hasKeysUnder(ctx, dirPrefix(k))
	if lerr == nil && isDir {
		return vfs.NewPathError(op, q, vfs.ErrIsDir)
	}
	if lerr != nil && f.opts.DescribeError != nil && errors.Is(f.opts.DescribeError(lerr), vfs.ErrBucketNotExist) {
		return f.pathError(op, q, lerr) // the GET's "not found" was the bucket's
	}
	if f.opts.DescribeError != nil && f.opts.DescribeError(cause) != cause {
		return f.pathError(op, q, cause) // e.g. the bucket itself is missing
	}
	// A missing object is just that: the driver's request details would only
	// bury the answer.
	return vfs.NewPathError(op, q, fs.ErrNotExist)
}

// inputStream reads one object lazily. It implements vfs.InputStream.
type inputStream struct {
	f    *FileSystem
	ctx  context.Context
	path vfs.Path
	key  string

	off int64 // offset of the next Read
	// pin is the version of the object the stream's first response came from,
	// nil before that response; every later response must be of it. pinMu
	// makes OpenRange's first GET the only one until it is set.
	pin    *version
	pinMu  sync.Mutex
	body   *blob.Reader // open GET positioned at off, or nil
	closed bool
}

// size returns the object's size, or -1 before a response told it.
func (r *inputStream) size() int64 {
	if r.pin == nil {
		return -1
	}
	return r.pin.size
}

// pinHead pins the version a HEAD answered with.
func (r *inputStream) pinHead(attrs *blob.Attributes) {
	v := r.f.headVersion(attrs)
	r.pin = &v
}

// get GETs length bytes (-1: to the end) of the object from off, which is
// before the end when the size is known. The first response pins the
// stream's version; later GETs are conditional on it and their responses
// checked against it (vfs.ErrChanged). A nil body and nil error mean that off
// is at or past the end of the object.
func (r *inputStream) get(op string, off, length int64) (*blob.Reader, error) {
	var v string
	if r.pin != nil {
		v = r.pin.id
	}
	body, err := r.f.rangeReaderIf(r.ctx, r.key, off, length, v)
	switch {
	case err == nil:
	case r.pin == nil && r.f.isRangePastEnd(err):
		return nil, nil
	case r.pin == nil:
		return nil, r.f.readError(r.ctx, op, r.path, r.key, err)
	case r.f.isPreconditionFailed(err):
		return nil, errChanged(op, r.path, *r.pin, "the store refused a read conditional on it (precondition failed): the object was replaced")
	case r.f.isRangePastEnd(err):
		return nil, errChanged(op, r.path, *r.pin, fmt.Sprintf("the object no longer holds offset %d", off))
	case r.f.isNotFound(err):
		return nil, errDeleted(op, r.path, *r.pin)
	default:
		return nil, r.f.readError(r.ctx, op, r.path, r.key, err)
	}
	got := r.f.readVersion(body)
	if r.pin == nil {
		r.pin = &got
		return body, nil
	}
	if !r.pin.same(got) {
		_ = body.Close()
		return nil, errChanged(op, r.path, *r.pin, "the store now answers with another ("+got.String()+")")
	}
	return body, nil
}

// Read reads from the current offset, opening a GET from there if none is open.
func (r *inputStream) Read(p []byte) (int, error) {
	if r.closed {
		return 0, vfs.NewPathError("read", r.path, fs.ErrClosed)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if size := r.size(); size >= 0 && r.off >= size {
		return 0, io.EOF
	}
	if r.body == nil {
		body, err := r.get("read", r.off, -1)
		if err != nil || body == nil {
			return 0, cmp.Or(err, io.EOF)
		}
		r.body = body
	}
	n, err := r.body.Read(p)
	r.off += int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		r.dropBody()
		return n, r.f.pathError("read", r.path, err)
	}
	return n, err
}

// ReadAt reads len(p) bytes at off with one ranged GET, without moving the
// offset Read uses.
func (r *inputStream) ReadAt(p []byte, off int64) (int, error) {
	if r.closed {
		return 0, vfs.NewPathError("read", r.path, fs.ErrClosed)
	}
	if off < 0 {
		return 0, invalid("read", r.path, "negative offset %d", off)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if size := r.size(); size >= 0 && off >= size {
		return 0, io.EOF
	}
	body, err := r.get("read", off, int64(len(p)))
	if err != nil || body == nil {
		return 0, cmp.Or(err, io.EOF)
	}
	defer body.Close()
	n, err := io.ReadFull(body, p)
	switch {
	case err == nil:
		return n, nil
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return n, io.EOF
	}
	return n, r.f.pathError("read", r.path, err)
}

// Seek sets the offset of the next Read. It sends no request, except that
// io.SeekEnd HEADs the object once when its size is not known yet.
func (r *inputStream) Seek(offset int64, whence int) (int64, error) {
	if r.closed {
		return 0, vfs.NewPathError("seek", r.path, fs.ErrClosed)
	}
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = r.off + offset
	case io.SeekEnd:
		if r.pin == nil {
			attrs, err := r.f.attributes(r.ctx, r.key)
			if err != nil {
				return 0, r.f.readError(r.ctx, "seek", r.path, r.key, err)
			}
			r.pinHead(attrs)
		}
		abs = r.size() + offset
	default:
		return 0, invalid("seek", r.path, "whence %d (want io.SeekStart, io.SeekCurrent or io.SeekEnd)", whence)
	}
	if abs < 0 {
		return 0, invalid("seek", r.path, "negative position %d", abs)
	}
	if abs != r.off {
		r.dropBody()
		r.off = abs
	}
	return abs, nil
}

func (r *inputStream) dropBody() {
	if r.body != nil {
		_ = r.body.Close()
		r.body = nil
	}
}

// Close releases the open GET, if any. Later calls fail with fs.ErrClosed.
func (r *inputStream) Close() error {
	if r.closed {
		return vfs.NewPathError("close", r.path, fs.ErrClosed)
	}
	r.closed = true
	r.dropBody()
	return nil
}

// String names the stream's path.
func (r *inputStream) String() string { return fmt.Sprintf("blobfs reader %s", r.path) }

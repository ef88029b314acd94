package blobfs

import (
	"errors"
	"io"
	"io/fs"
	"strings"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// ReadsRanges reports that OpenRange may be used (vfs.RangeReader).
func (r *inputStream) ReadsRanges() bool { return true }

// OpenRange returns a reader of the n bytes of the object at off (fewer at
// its end, none past it) with one ranged GET, of the version the stream
// reads and conditional on it like every other GET of the stream (see
// Open). It may be called from several goroutines at once (not while Read,
// ReadAt or Seek are used): when no response pinned the stream's version
// yet, the first call's GET is sent alone and pins it, and the others wait
// for it. vfs.CopyTree reads a large object in parallel ranges this way.
func (r *inputStream) OpenRange(off, n int64) (io.ReadCloser, error) {
	if r.closed {
		return nil, vfs.NewPathError("read", r.path, fs.ErrClosed)
	}
	if off < 0 || n < 0 {
		return nil, invalid("read", r.path, "range of %d bytes at %d", n, off)
	}
	r.pinMu.Lock()
	if r.pin == nil {
		defer r.pinMu.Unlock()
	} else {
		r.pinMu.Unlock()
	}
	if size := r.size(); n == 0 || size >= 0 && off >= size {
		return io.NopCloser(strings.NewReader("")), nil
	}
	body, err := r.get("read", off, n)
	if err != nil {
		return nil, err
	}
	if body == nil {
		return io.NopCloser(strings.NewReader("")), nil
	}
	return &rangeBody{body: body, r: r}, nil
}

// rangeBody is the body of one OpenRange GET; its errors name the stream's path.
type rangeBody struct {
	body *blob.Reader
	r    *inputStream
}

func (b *rangeBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		return n, b.r.f.pathError("read", b.r.path, err)
	}
	return n, err
}

func (b *rangeBody) Close() error { return b.body.Close() }

var _ vfs.RangeReader = (*inputStream)(nil)

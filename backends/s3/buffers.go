package s3

import (
	"bytes"
	"errors"
	"io"
	"math/bits"
	"sync"
)

// buffers holds upload buffers for reuse across uploads, one sync.Pool per
// capacity: powers of two from firstBufferSize (a file's buffer as it grows)
// and the part sizes in use (multipart part buffers). A checkpoint writing
// many state files one after the other then fills the same few buffers
// instead of allocating (and faulting in) a fresh one per file. What the pool
// keeps is bounded by what uploads held at once, and the garbage collector
// frees buffers nobody took again within two collections (sync.Pool), so an
// idle process holds none.
//
// A buffer goes back only when no request can read it any more: it was never
// sent, or it was sent through a body whose fence returned (see body).
var buffers sync.Map // capacity (int) → *sync.Pool of *[]byte

// bufferSize is the capacity of the buffer for want bytes of an upload with
// parts of partSize bytes: the power of two that holds want (at least
// firstBufferSize), or the part size when that is smaller.
func bufferSize(want, partSize int) int {
	size := firstBufferSize
	if want > size {
		size = 1 << bits.Len(uint(want-1))
	}
	return min(size, partSize)
}

// getBuffer returns an empty buffer of capacity size, reused when one is free.
func getBuffer(size int) []byte {
	if p, ok := buffers.Load(size); ok {
		if b, ok := p.(*sync.Pool).Get().(*[]byte); ok {
			return (*b)[:0]
		}
	}
	return make([]byte, 0, size)
}

// putBuffer gives b back for reuse. The caller must not use b afterwards, and
// no request may still read it.
func putBuffer(b []byte) {
	if cap(b) < firstBufferSize {
		return
	}
	p, ok := buffers.Load(cap(b))
	if !ok {
		p, _ = buffers.LoadOrStore(cap(b), new(sync.Pool))
	}
	b = b[:0]
	p.(*sync.Pool).Put(&b)
}

// errFenced is what a request body reads after its request ended.
var errFenced = errors.New("s3: request body read after its request ended")

// body is the request body of one PutObject or UploadPart: a reader over an
// upload buffer that can be fenced. The HTTP transport may still read a
// request's body after the request returned (net/http: RoundTrip "may [close
// the body] in a separate goroutine even after RoundTrip returns", as when the
// server answered before it read the whole body), so a buffer is reused only
// after fence: fence waits for a Read, Seek or WriteTo in progress to end, and
// every later call reads nothing and fails. The SDK closes its own wrapper of
// the body the same way (smithy-go's safeReadCloser) after each attempt; the
// fence does not depend on that.
//
// body implements io.WriterTo and Len like bytes.Reader, so the SDK hashes and
// sizes it as it does the bytes.Reader a program would hand it.
type body struct {
	mu     sync.Mutex
	r      bytes.Reader
	fenced bool
}

func newBody(b []byte) *body {
	x := &body{}
	x.r.Reset(b)
	return x
}

// Read reads from the buffer, or fails once fenced.
func (b *body) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fenced {
		return 0, errFenced
	}
	return b.r.Read(p)
}

// WriteTo writes the rest of the buffer to w, or fails once fenced.
func (b *body) WriteTo(w io.Writer) (int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fenced {
		return 0, errFenced
	}
	return b.r.WriteTo(w)
}

// Seek sets the offset of the next Read, or fails once fenced.
func (b *body) Seek(offset int64, whence int) (int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fenced {
		return 0, errFenced
	}
	return b.r.Seek(offset, whence)
}

// Len is the number of bytes not read yet (0 once fenced).
func (b *body) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.r.Len()
}

// fence ends every use of the buffer: it returns when no call is reading it,
// and none will again.
func (b *body) fence() {
	b.mu.Lock()
	b.fenced = true
	b.r.Reset(nil)
	b.mu.Unlock()
}

package limit

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// tracker is the bookkeeping of one open stream. mu is held by the owner
// during each call, and by the inactivity check while it closes the stream.
type tracker struct {
	f      *FS
	path   vfs.Path
	output bool
	moved  atomic.Int64 // bytes read or written

	// Guarded by f.mu.
	lastBytes int64
	lastCheck time.Time

	mu       sync.Mutex
	timedOut bool               // closed by the inactivity check
	done     bool               // the slot was given back
	closeFn  func() error       // closes the stream below
	cancel   context.CancelFunc // of an output stream's context
}

// track registers a new stream.
func (f *FS) track(p vfs.Path, output bool, closeFn func() error) *tracker {
	t := &tracker{f: f, path: p, output: output, closeFn: closeFn}
	f.mu.Lock()
	t.lastCheck = time.Now()
	f.open[t] = true
	f.mu.Unlock()
	return t
}

// enter starts a call on the stream: it fails once the stream timed out.
func (t *tracker) enter(op string) error {
	t.mu.Lock()
	if t.timedOut {
		t.mu.Unlock()
		return vfs.NewPathError(op, t.path, ErrStreamTimeout)
	}
	return nil
}

// finish gives the slot back (once); called with mu held.
func (t *tracker) finish() {
	if t.done || t.timedOut {
		return
	}
	t.done = true
	if t.cancel != nil {
		t.cancel()
	}
	t.f.mu.Lock()
	delete(t.f.open, t)
	t.f.releaseLocked(t.output)
	t.f.mu.Unlock()
}

// expire closes a stream that the inactivity check took (mu held, slot
// already given back) and unlocks it.
func (t *tracker) expire() {
	defer t.mu.Unlock()
	if t.closeFn != nil {
		_ = t.closeFn()
	}
}

type input struct {
	layer.Input
	t *tracker
}

func (i *input) Read(b []byte) (int, error) {
	if err := i.t.enter("read"); err != nil {
		return 0, err
	}
	defer i.t.mu.Unlock()
	n, err := i.InputStream.Read(b)
	i.t.moved.Add(int64(n))
	return n, err
}

func (i *input) ReadAt(b []byte, off int64) (int, error) {
	if err := i.t.enter("read"); err != nil {
		return 0, err
	}
	defer i.t.mu.Unlock()
	n, err := i.InputStream.ReadAt(b, off)
	i.t.moved.Add(int64(n))
	return n, err
}

func (i *input) Seek(offset int64, whence int) (int64, error) {
	if err := i.t.enter("seek"); err != nil {
		return 0, err
	}
	defer i.t.mu.Unlock()
	return i.InputStream.Seek(offset, whence)
}

// Close closes the stream and gives its slot back; after a timeout it
// returns nil (the stream is closed).
func (i *input) Close() error {
	i.t.mu.Lock()
	defer i.t.mu.Unlock()
	if i.t.timedOut {
		return nil
	}
	err := i.InputStream.Close()
	i.t.finish()
	return err
}

type output struct {
	layer.Output
	t *tracker
}

func (o *output) Write(b []byte) (int, error) {
	if err := o.t.enter("write"); err != nil {
		return 0, err
	}
	defer o.t.mu.Unlock()
	n, err := o.OutputStream.Write(b)
	o.t.moved.Add(int64(n))
	return n, err
}

func (o *output) Pos() int64 {
	o.t.mu.Lock()
	defer o.t.mu.Unlock()
	return o.OutputStream.Pos()
}

func (o *output) Flush() error {
	if err := o.t.enter("flush"); err != nil {
		return err
	}
	defer o.t.mu.Unlock()
	return o.OutputStream.Flush()
}

func (o *output) Sync() error {
	if err := o.t.enter("sync"); err != nil {
		return err
	}
	defer o.t.mu.Unlock()
	return o.OutputStream.Sync()
}

// Close publishes the file and gives the slot back; after a timeout it fails
// with ErrStreamTimeout (nothing was published).
func (o *output) Close() error {
	if err := o.t.enter("close"); err != nil {
		return err
	}
	defer o.t.mu.Unlock()
	err := o.OutputStream.Close()
	o.t.finish()
	return err
}

// Abort discards the stream and gives the slot back.
func (o *output) Abort() error {
	if err := o.t.enter("abort"); err != nil {
		return nil // already discarded
	}
	defer o.t.mu.Unlock()
	err := o.Output.Abort()
	o.t.finish()
	return err
}

// ReadsRanges is false: this layer's Read and ReadAt are what a copy must go
// through, so it is never read in parallel ranges around them.
func (i *input) ReadsRanges() bool { return false }

// WritesRanges is false: this layer's Write is what a copy must go through.
func (o *output) WritesRanges() bool { return false }

// Package limit is Flink's LimitedConnectionsFileSystem as a layer: it bounds
// the number of streams open at once on the file system below, in total, for
// input (Open) and for output (Create), so that a job cannot open more
// connections than a store can take.
//
// A caller that finds no free slot waits, up to Settings.OpenTimeout (zero:
// as long as its context allows), and then fails with an *fs.PathError
// wrapping ErrTimeout whose message names the limits and the open streams; a
// cancelled context ends the wait with the context's error. A slot is taken
// when Open or Create is called and given back when the stream is closed (or
// aborted), or when the open fails.
//
// With Settings.StreamTimeout set, a caller waiting for a slot closes a
// stream that has moved no byte for that long, as Flink does, to make room:
// an output stream is aborted (nothing is published), an input stream
// closed. The owner's next call on that stream fails with ErrStreamTimeout
// (an output stream's Close too, since nothing was published). Unlike Flink,
// a stream that is inside a call (a Read blocked on the network) is not
// closed under its caller, since vfs streams are not safe for concurrent use;
// cancel the context given to Open or Create to end such a call.
//
// ReadFile and WriteFile hold an input or an output slot while they run; a
// server-side CopyFile holds an output slot, and a copy that has to stream
// holds an input and an output slot at once (so it needs a total limit of 2
// or more).
//
// Each limit applies on its own. (Flink's createStream enables the output
// limit only when an input limit is set too, a slip this port does not
// copy.)
//
// The limits can be set per scheme with Flink's option names (see
// FromConfig), and Configure applies them to a vfs.Registry, as Flink's
// ConnectionLimitingFactory does.
package limit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// ErrTimeout is wrapped by the error of an Open or Create (or ReadFile,
// WriteFile, CopyFile) that found no free slot within Settings.OpenTimeout.
var ErrTimeout = errors.New("timeout while waiting for an available stream/connection")

// ErrStreamTimeout is wrapped by the errors of a stream that was closed to
// make room after it moved no byte for Settings.StreamTimeout (Flink's
// StreamTimeoutException).
var ErrStreamTimeout = errors.New("stream closed due to inactivity timeout; this is done to prevent inactive streams from blocking the full pool of limited connections")

// Settings are the limits (Flink's ConnectionLimitingSettings). A zero
// limit means no limit; zero timeouts mean none.
type Settings struct {
	// Total is the maximum number of open streams, input and output together.
	Total int
	// Input is the maximum number of open input streams.
	Input int
	// Output is the maximum number of open output streams.
	Output int
	// OpenTimeout is how long Open and Create wait for a free slot.
	OpenTimeout time.Duration
	// StreamTimeout is how long a stream may move no byte before a waiting
	// caller may close it to make room.
	StreamTimeout time.Duration
}

// check validates s.
func (s Settings) check() error {
	for _, v := range []struct {
		name string
		n    int64
	}{{"Total", int64(s.Total)}, {"Input", int64(s.Input)}, {"Output", int64(s.Output)},
		{"OpenTimeout", int64(s.OpenTimeout)}, {"StreamTimeout", int64(s.StreamTimeout)}} {
		if v.n < 0 {
			return fmt.Errorf("limit: %w: Settings.%s is %d (expected 0 for none, or a positive value)", fs.ErrInvalid, v.name, v.n)
		}
	}
	return nil
}

// FS limits the streams open at once on the file system below it.
type FS struct {
	layer.Base
	s       Settings
	mu      sync.Mutex
	wake    chan struct{}     // closed and replaced when a slot is given back
	in, out int               // slots taken
	open    map[*tracker]bool // open streams, for the inactivity check
}

// New returns inner limited by s. It fails with fs.ErrInvalid on a negative
// setting.
func New(inner vfs.FileSystem, s Settings) (*FS, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	return &FS{Base: layer.Base{Inner: inner}, s: s, wake: make(chan struct{}), open: map[*tracker]bool{}}, nil
}

// Settings returns the limits.
func (f *FS) Settings() Settings { return f.s }

// Streams returns the number of input and output slots taken now (open
// streams and calls in progress).
func (f *FS) Streams() (input, output int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.in, f.out
}

// availableLocked reports whether one more stream of that kind may open.
func (f *FS) availableLocked(output bool) bool {
	if f.s.Total > 0 && f.in+f.out >= f.s.Total {
		return false
	}
	if output {
		return f.s.Output <= 0 || f.out < f.s.Output
	}
	return f.s.Input <= 0 || f.in < f.s.Input
}

// acquire takes a slot, waiting as the package documentation says.
func (f *FS) acquire(ctx context.Context, op string, p vfs.Path, output bool) error {
	var deadline <-chan time.Time
	if f.s.OpenTimeout > 0 {
		t := time.NewTimer(f.s.OpenTimeout)
		defer t.Stop()
		deadline = t.C
	}
	var check <-chan time.Time
	if f.s.StreamTimeout > 0 {
		t := time.NewTicker(f.s.StreamTimeout/2 + 1)
		defer t.Stop()
		check = t.C
	}
	f.mu.Lock()
	for !f.availableLocked(output) {
		if f.s.StreamTimeout > 0 {
			if victim := f.inactiveLocked(time.Now()); victim != nil {
				f.mu.Unlock()
				victim.expire()
				f.mu.Lock()
				continue
			}
		}
		wake := f.wake
		f.mu.Unlock()
		select {
		case <-wake:
		case <-check:
		case <-ctx.Done():
			return vfs.NewPathError(op, p, ctx.Err())
		case <-deadline:
			f.mu.Lock()
			if f.availableLocked(output) {
				continue
			}
			err := fmt.Errorf("%w after %s (limits: total=%d, input=%d, output=%d; open: input=%d, output=%d)",
				ErrTimeout, f.s.OpenTimeout, f.s.Total, f.s.Input, f.s.Output, f.in, f.out)
			f.mu.Unlock()
			return vfs.NewPathError(op, p, err)
		}
		f.mu.Lock()
	}
	if output {
		f.out++
	} else {
		f.in++
	}
	f.mu.Unlock()
	return nil
}

// release gives a slot back and wakes the waiters.
func (f *FS) release(output bool) {
	f.mu.Lock()
	f.releaseLocked(output)
	f.mu.Unlock()
}

func (f *FS) releaseLocked(output bool) {
	if output {
		f.out--
	} else {
		f.in--
	}
	close(f.wake)
	f.wake = make(chan struct{})
}

// inactiveLocked finds an open stream that moved no byte since the last
// check, at least StreamTimeout ago, and that is not inside a call; it
// removes it from the open streams, gives its slot back and returns it
// locked, for expire. It returns nil when there is none.
func (f *FS) inactiveLocked(now time.Time) *tracker {
	for t := range f.open {
		if now.Sub(t.lastCheck) < f.s.StreamTimeout {
			continue
		}
		if b := t.moved.Load(); b != t.lastBytes {
			t.lastBytes, t.lastCheck = b, now
			continue
		}
		if !t.mu.TryLock() {
			continue // inside a call: not ours to close
		}
		delete(f.open, t)
		t.timedOut = true
		f.releaseLocked(t.output)
		return t
	}
	return nil
}

// with runs fn holding a slot of that kind.
func with[T any](f *FS, ctx context.Context, op string, p vfs.Path, output bool, fn func() (T, error)) (T, error) {
	if err := f.acquire(ctx, op, p, output); err != nil {
		var zero T
		return zero, err
	}
	defer f.release(output)
	return fn()
}

// Open takes an input slot and opens p below; the slot is given back when
// the stream is closed.
func (f *FS) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	return f.openWith(ctx, p, func() (vfs.InputStream, error) { return f.Inner.Open(ctx, p) })
}

// OpenBeneath takes an input slot, as Open does, and opens dir/rel below
// without following a symbolic link in rel (vfs.OpenBeneathFS). Over a file
// system without the way (layer.CanOpenBeneath) it fails with
// errors.ErrUnsupported without taking a slot.
func (f *FS) OpenBeneath(ctx context.Context, dir vfs.Path, rel string) (vfs.InputStream, error) {
	if !layer.CanOpenBeneath(f.Inner) {
		return f.Base.OpenBeneath(ctx, dir, rel) // unsupported: no slot taken
	}
	return f.openWith(ctx, dir.Join(rel), func() (vfs.InputStream, error) { return f.Base.OpenBeneath(ctx, dir, rel) })
}

// openWith waits for an input slot and opens the stream at p with below.
func (f *FS) openWith(ctx context.Context, p vfs.Path, below func() (vfs.InputStream, error)) (vfs.InputStream, error) {
	if err := f.acquire(ctx, "open", p, false); err != nil {
		return nil, err
	}
	in, err := below()
	if err != nil {
		f.release(false)
		return nil, err
	}
	return &input{Input: layer.Input{InputStream: in}, t: f.track(p, false, in.Close)}, nil
}

// Create takes an output slot and creates p below; the slot is given back
// when the stream is closed or aborted.
func (f *FS) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.create(ctx, p, mode, f.Inner.Create)
}

// CreateUnsynced is Create, with the file system below's CreateUnsynced.
func (f *FS) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.create(ctx, p, mode, f.Base.CreateUnsynced)
}

// create waits for an output slot and opens the stream with below.
func (f *FS) create(ctx context.Context, p vfs.Path, mode vfs.WriteMode,
	below func(context.Context, vfs.Path, vfs.WriteMode) (vfs.OutputStream, error)) (vfs.OutputStream, error) {
	if err := f.acquire(ctx, "create", p, true); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	out, err := below(ctx, p, mode)
	if err != nil {
		cancel()
		f.release(true)
		return nil, err
	}
	// The inactivity check discards the stream: Abort, and the cancelled
	// context for a stream without one.
	discard := func() error { vfs.Discard(out, cancel); return nil }
	t := f.track(p, true, discard)
	t.cancel = cancel
	return &output{Output: layer.Output{OutputStream: out}, t: t}, nil
}

// ReadFile holds an input slot while it reads p below.
func (f *FS) ReadFile(ctx context.Context, p vfs.Path) ([]byte, error) {
	return with(f, ctx, "read", p, false, func() ([]byte, error) { return f.Base.ReadFile(ctx, p) })
}

// WriteFile holds an output slot while it writes p below.
func (f *FS) WriteFile(ctx context.Context, p vfs.Path, data []byte, mode vfs.WriteMode) error {
	_, err := with(f, ctx, "write", p, true, func() (struct{}, error) {
		return struct{}{}, f.Base.WriteFile(ctx, p, data, mode)
	})
	return err
}

// CopyFile copies server-side below holding an output slot, or streams
// through this layer's Open and Create (an input and an output slot) when the
// file system below cannot copy by itself.
func (f *FS) CopyFile(ctx context.Context, dst, src vfs.Path, mode vfs.WriteMode) (int64, error) {
	if _, ok := f.Inner.(vfs.CopyFS); ok {
		return with(f, ctx, "copy", dst, true, func() (int64, error) { return f.Base.CopyFile(ctx, dst, src, mode) })
	}
	return vfs.CopyWithMode(ctx, layer.Streams(f), dst, layer.Streams(f), src, mode)
}

package vfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// RangeReader is implemented by input streams that can read ranges of their
// file as streams of their own, several at once: an object store's stream,
// where each range is a ranged GET of the one version the stream reads.
// CopyTree reads a large file in parallel ranges through it (as the AWS SDK's
// downloader and rclone's multi-thread streams do) when the destination
// stream is a RangeWriter.
type RangeReader interface {
	// ReadsRanges reports whether OpenRange may be used (a stream that
	// forwards to another one that cannot says false).
	ReadsRanges() bool
	// OpenRange returns a reader of the n bytes of the file at off (fewer at
	// its end; none past it). Like every read of the stream it returns bytes
	// of the stream's one version only and fails with ErrChanged rather than
	// return a byte of another. OpenRange and the readers it returns may be
	// used from several goroutines at once, but not while Read, ReadAt or
	// Seek of the stream are.
	OpenRange(off, n int64) (io.ReadCloser, error)
}

// RangeWriter is implemented by output streams that can be written at
// offsets from several goroutines at once (a file on disk being written:
// each write a pwrite of its own). CopyTree fills one from parallel ranges.
type RangeWriter interface {
	// WritesRanges reports whether WriteAt may be used.
	WritesRanges() bool
	// WriteAt writes p at off of the file being written, past its end if
	// need be. Calls may overlap in time with each other, not with Write.
	// Pos is then the end of the furthest byte written. Like a failed
	// Write, a failed WriteAt discards the stream.
	WriteAt(p []byte, off int64) (int, error)
}

// rangeSize is the size of the ranges of a copy in parallel ranges; a file
// of at least two ranges is read that way, DefaultCopyRanges
// (CopyOptions.Ranges) at a time. A variable for tests (export_test.go).
var rangeSize int64 = 16 << 20

// DefaultCopyRanges is how many ranges of one large file CopyTree reads at a
// time unless CopyOptions.Ranges says otherwise.
const DefaultCopyRanges = 4

// copyRanges copies the file in reads, of size bytes by the listing, to out,
// ranges at a time, when both streams can (RangeReader, RangeWriter) and the
// file is large enough; done is false when it did not try (nothing was read
// or written then). report is told the bytes as they are written. The size
// copied is the one of the version the stream reads (StatStream once the
// first range pinned it), not the listing's.
func copyRanges(ctx context.Context, src FileSystem, p Path, in InputStream, size int64, out OutputStream, ranges int, report func(int64)) (n int64, done bool, err error) {
	rr, ok := in.(RangeReader)
	if !ok || !rr.ReadsRanges() || ranges < 2 || size < 2*rangeSize {
		return 0, false, nil
	}
	rw, ok := out.(RangeWriter)
	if !ok || !rw.WritesRanges() {
		return 0, false, nil
	}
	// The first range pins the version the stream reads, and so the size to
	// copy; the others are conditional on that version.
	first, err := rr.OpenRange(0, rangeSize)
	if err != nil {
		return 0, true, err
	}
	st, err := StatStream(ctx, src, p, in)
	if err != nil {
		first.Close()
		return 0, true, err
	}
	size = st.Size
	rangeSize := rangeSize
	var (
		next    atomic.Int64 // offset of the next range to read
		failed  atomic.Bool
		mu      sync.Mutex
		firstEr error
		wg      sync.WaitGroup
	)
	next.Store(rangeSize)
	fail := func(err error) {
		mu.Lock()
		if firstEr == nil {
			firstEr = err
		}
		mu.Unlock()
		failed.Store(true)
	}
	copyRange := func(r io.ReadCloser, off int64) {
		defer r.Close()
		want := max(0, min(rangeSize, size-off))
		buf := copyBuffers.Get().(*[]byte)
		defer copyBuffers.Put(buf)
		got, err := io.CopyBuffer(&offsetWriter{w: rw, off: off, report: report},
			stopReader{r: r, stop: &failed, ctx: ctx}, *buf)
		switch {
		case err != nil:
			fail(err)
		case got != want:
			fail(NewPathError("read", p, fmt.Errorf("%w: a range at %d of the %d bytes the stream reads ended after %d of its %d bytes", ErrChanged, off, size, got, want)))
		}
	}
	// The first worker copies the first range, then every worker takes the
	// next range not taken yet.
	for w := range min(ranges, max(1, int((size+rangeSize-1)/rangeSize))) {
		var r io.ReadCloser
		if w == 0 {
			r = first
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r != nil {
				copyRange(r, 0)
			}
			for !failed.Load() && ctx.Err() == nil {
				off := next.Add(rangeSize) - rangeSize
				if off >= size {
					return
				}
				r, err := rr.OpenRange(off, min(rangeSize, size-off))
				if err != nil {
					fail(err)
					return
				}
				copyRange(r, off)
			}
		}()
	}
	wg.Wait()
	if firstEr != nil {
		return 0, true, firstEr
	}
	if err := ctx.Err(); err != nil {
		return 0, true, err
	}
	return size, true, nil
}

// offsetWriter writes to a RangeWriter from off on, and reports the bytes.
type offsetWriter struct {
	w      RangeWriter
	off    int64
	report func(int64)
}

func (o *offsetWriter) Write(p []byte) (int, error) {
	n, err := o.w.WriteAt(p, o.off)
	o.off += int64(n)
	if n > 0 && o.report != nil {
		o.report(int64(n))
	}
	return n, err
}

// errStopped ends the reads of a range copy once another range failed.
var errStopped = errors.New("vfs: range copy stopped: another range failed")

// stopReader reads r until stop is set or ctx ends.
type stopReader struct {
	r    io.Reader
	stop *atomic.Bool
	ctx  context.Context
}

func (s stopReader) Read(p []byte) (int, error) {
	if s.stop.Load() {
		return 0, errStopped
	}
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	return s.r.Read(p)
}

// copyStream writes in, the source file st, to a new file at p and returns
// the bytes copied and the stream, closed. The stream keeps the version it
// publishes (WrittenVersioner) and is created with CreateUnsynced: the copy
// syncs the directory once for all its files (syncDirs). A large file is
// copied in parallel ranges where both streams can (copyRanges).
func (c *treeCopier) copyStream(ctx context.Context, in InputStream, st FileStatus, p Path, mode WriteMode) (int64, OutputStream, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out, err := CreateUnsynced(ctx, c.dst, p, mode)
	if err != nil {
		return 0, nil, err
	}
	if wv, ok := out.(WrittenVersioner); ok {
		wv.KeepVersion()
	}
	ranges := c.opts.Ranges
	if ranges <= 0 {
		ranges = DefaultCopyRanges
	}
	n, done, err := copyRanges(ctx, c.src, st.Path, in, st.Size, out, ranges, func(n int64) { c.report(n, false) })
	if !done {
		buf := copyBuffers.Get().(*[]byte)
		n, err = io.CopyBuffer(writerOnly{out}, progressReader{in, c}, *buf)
		copyBuffers.Put(buf)
	}
	if err != nil {
		Discard(out, cancel)
		return n, nil, fmt.Errorf("vfs: copy to %s: %w", p, err)
	}
	if err := out.Close(); err != nil {
		return n, nil, err
	}
	if _, ok := c.dst.(DirSyncer); ok {
		c.mu.Lock()
		if c.unsynced == nil {
			c.unsynced = map[Path]bool{}
		}
		c.unsynced[p.Parent()] = true
		c.mu.Unlock()
	}
	return n, out, nil
}

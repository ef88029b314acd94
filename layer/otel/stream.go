package otel

import (
	"context"
	"io"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// stream is the span and the counts of one open stream.
type stream struct {
	o     *op
	ctx   context.Context
	set   metric.MeasurementOption // direction and scheme
	bytes int64
	err   error // the first failure of a call
	ended bool
}

func (f *FS) newStream(ctx context.Context, o *op, set metric.MeasurementOption) *stream {
	f.streams.Add(ctx, 1, set)
	return &stream{o: o, ctx: ctx, set: set}
}

// moved counts n bytes and remembers the first error other than io.EOF.
func (s *stream) moved(n int, err error, eof bool) {
	if n > 0 {
		s.bytes += int64(n)
		s.o.f.io.Add(s.ctx, int64(n), s.set)
	}
	if err != nil && !eof && s.err == nil {
		s.err = err
	}
}

// close ends the stream's span once, with err (or the first failure).
func (s *stream) close(err error) {
	if s.ended {
		return
	}
	s.ended = true
	if err == nil {
		err = s.err
	}
	s.o.f.streams.Add(s.ctx, -1, s.set)
	s.o.end(s.ctx, err, BytesKey.Int64(s.bytes))
}

// Open is traced from Open to the stream's Close.
func (f *FS) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	return f.open(ctx, p, f.Inner.Open)
}

// OpenBeneath is traced as vfskit.open of dir/rel, like Open (with
// vfskit.beneath true). Over a file system without the way
// (layer.CanOpenBeneath) it fails with errors.ErrUnsupported, untraced.
func (f *FS) OpenBeneath(ctx context.Context, dir vfs.Path, rel string) (vfs.InputStream, error) {
	if !layer.CanOpenBeneath(f.Inner) {
		return f.Base.OpenBeneath(ctx, dir, rel) // unsupported: no span
	}
	return f.open(ctx, dir.Join(rel), func(ctx context.Context, _ vfs.Path) (vfs.InputStream, error) {
		return f.Base.OpenBeneath(ctx, dir, rel)
	}, attribute.Bool("vfskit.beneath", true))
}

func (f *FS) open(ctx context.Context, p vfs.Path, below func(context.Context, vfs.Path) (vfs.InputStream, error), kind ...attribute.KeyValue) (vfs.InputStream, error) {
	sctx, o := f.begin(ctx, vfs.OpOpen, p, kind...)
	in, err := below(sctx, p)
	if err != nil {
		o.end(sctx, err)
		return nil, err
	}
	return &input{Input: layer.Input{InputStream: in}, s: f.newStream(sctx, o, f.readSet)}, nil
}

// Create is traced from Create to the stream's Close.
func (f *FS) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.create(ctx, vfs.OpCreate, p, mode, f.Inner.Create)
}

// CreateUnsynced is traced as vfskit.create_unsynced, like Create.
func (f *FS) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.create(ctx, vfs.OpCreateUnsynced, p, mode, f.Base.CreateUnsynced)
}

func (f *FS) create(ctx context.Context, op vfs.Op, p vfs.Path, mode vfs.WriteMode,
	below func(context.Context, vfs.Path, vfs.WriteMode) (vfs.OutputStream, error)) (vfs.OutputStream, error) {
	sctx, o := f.begin(ctx, op, p)
	out, err := below(sctx, p, mode)
	if err != nil {
		o.end(sctx, err)
		return nil, err
	}
	return &output{Output: layer.Output{OutputStream: out}, s: f.newStream(sctx, o, f.writeSet)}, nil
}

type input struct {
	layer.Input
	s *stream
}

func (i *input) Read(b []byte) (int, error) {
	n, err := i.InputStream.Read(b)
	i.s.moved(n, err, isEOF(err))
	return n, err
}

func (i *input) ReadAt(b []byte, off int64) (int, error) {
	n, err := i.InputStream.ReadAt(b, off)
	i.s.moved(n, err, isEOF(err))
	return n, err
}

func (i *input) Close() error {
	err := i.InputStream.Close()
	i.s.close(err)
	return err
}

type output struct {
	layer.Output
	s *stream
}

func (o *output) Write(b []byte) (int, error) {
	n, err := o.OutputStream.Write(b)
	o.s.moved(n, err, false)
	return n, err
}

func (o *output) Close() error {
	err := o.OutputStream.Close()
	o.s.close(err)
	return err
}

func (o *output) Abort() error {
	err := o.Output.Abort()
	o.s.close(errAborted)
	return err
}

// errAborted is the outcome recorded for an aborted output stream.
var errAborted = context.Canceled

func isEOF(err error) bool { return err == io.EOF }

// ReadsRanges is false: this layer's Read and ReadAt are what a copy must go
// through, so it is never read in parallel ranges around them.
func (i *input) ReadsRanges() bool { return false }

// WritesRanges is false: this layer's Write is what a copy must go through.
func (o *output) WritesRanges() bool { return false }

package fault

import (
	"context"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// Open may fail; the stream's reads and close may fail too.
func (f *FS) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	return f.open(ctx, p, func() (vfs.InputStream, error) { return f.Inner.Open(ctx, p) })
}

// OpenBeneath may fail as Open does (the rules for Open, Read and Close
// apply to dir/rel), and opens dir/rel below without following a symbolic
// link in rel (vfs.OpenBeneathFS). Over a file system without the way
// (layer.CanOpenBeneath) it fails with errors.ErrUnsupported, and no rule
// sees it.
func (f *FS) OpenBeneath(ctx context.Context, dir vfs.Path, rel string) (vfs.InputStream, error) {
	if !layer.CanOpenBeneath(f.Inner) {
		return f.Base.OpenBeneath(ctx, dir, rel) // unsupported: no rule matched
	}
	return f.open(ctx, dir.Join(rel), func() (vfs.InputStream, error) { return f.Base.OpenBeneath(ctx, dir, rel) })
}

func (f *FS) open(ctx context.Context, p vfs.Path, below func() (vfs.InputStream, error)) (vfs.InputStream, error) {
	if _, err := f.inject(ctx, Open, p); err != nil {
		return nil, err
	}
	in, err := below()
	if err != nil {
		return nil, err
	}
	return &input{Input: layer.Input{InputStream: in}, f: f, ctx: ctx, p: p}, nil
}

// Create may fail; the stream's writes and close may fail too, and then
// nothing is published.
func (f *FS) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.create(ctx, p, mode, f.Inner.Create)
}

// CreateUnsynced is Create (the rules for Create apply), with the file
// system below's CreateUnsynced.
func (f *FS) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.create(ctx, p, mode, f.Base.CreateUnsynced)
}

func (f *FS) create(ctx context.Context, p vfs.Path, mode vfs.WriteMode,
	below func(context.Context, vfs.Path, vfs.WriteMode) (vfs.OutputStream, error)) (vfs.OutputStream, error) {
	if _, err := f.inject(ctx, Create, p); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	out, err := below(ctx, p, mode)
	if err != nil {
		cancel()
		return nil, err
	}
	return &output{Output: layer.Output{OutputStream: out}, f: f, ctx: ctx, cancel: cancel, p: p}, nil
}

type input struct {
	layer.Input
	f   *FS
	ctx context.Context
	p   vfs.Path
}

func (i *input) Read(b []byte) (int, error) {
	r, err := i.f.inject(i.ctx, Read, i.p)
	if err != nil {
		return 0, err
	}
	if r != nil && r.ShortRead && len(b) > 1 {
		b = b[:len(b)/2]
	}
	return i.InputStream.Read(b)
}

func (i *input) ReadAt(b []byte, off int64) (int, error) {
	if _, err := i.f.inject(i.ctx, Read, i.p); err != nil {
		return 0, err
	}
	return i.InputStream.ReadAt(b, off)
}

// Close closes the stream below, and may then fail.
func (i *input) Close() error {
	err := i.InputStream.Close()
	if _, ferr := i.f.inject(i.ctx, Close, i.p); ferr != nil {
		return ferr
	}
	return err
}

type output struct {
	layer.Output
	f      *FS
	ctx    context.Context
	cancel context.CancelFunc
	p      vfs.Path
	failed error // an injected write failure: Close discards
}

func (o *output) Write(b []byte) (int, error) {
	if _, err := o.f.inject(o.ctx, Write, o.p); err != nil {
		o.failed = err
		return 0, err
	}
	return o.OutputStream.Write(b)
}

// Close publishes, unless a write failed or the close fails: then the
// stream below is discarded and nothing is published.
func (o *output) Close() error {
	defer o.cancel()
	err := o.failed
	if err == nil {
		_, err = o.f.inject(o.ctx, Close, o.p)
	}
	if err != nil {
		vfs.Discard(o.OutputStream, o.cancel)
		return err
	}
	return o.OutputStream.Close()
}

// ReadsRanges is false: this layer's Read and ReadAt are what a copy must go
// through, so it is never read in parallel ranges around them.
func (i *input) ReadsRanges() bool { return false }

// WritesRanges is false: this layer's Write is what a copy must go through.
func (o *output) WritesRanges() bool { return false }

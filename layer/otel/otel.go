// Package otel is a layer that reports what a file system does to
// OpenTelemetry (the go.opentelemetry.io/otel API): a span per operation and
// per stream lifetime, and metrics.
//
// Spans are named "vfskit.<operation>" (vfskit.stat, vfskit.list,
// vfskit.mkdirs, vfskit.delete, vfskit.rename, vfskit.read_file,
// vfskit.write_file, vfskit.copy_file, vfskit.clean_temp, vfskit.real_path);
// vfskit.open and vfskit.create start at Open or Create and end when the
// stream is closed, with the bytes it moved in vfskit.io.bytes. Attributes
// follow OpenTelemetry's semantic conventions where they exist: url.scheme,
// server.address (the authority, without user info), file.path (redacted),
// error.type on failure (not_found, exists, permission, invalid,
// dir_not_empty, not_dir, is_dir, canceled, deadline_exceeded, or _OTHER),
// and the span status is Error with the (redacted) message.
//
// Metrics (instrumentation scope github.com/vfskit/vfskit/layer/otel):
//
//   - vfskit.operations (counter): calls by vfskit.operation, url.scheme and,
//     for failures, error.type;
//   - vfskit.operation.duration (histogram, s): their latency, same attributes;
//   - vfskit.io (counter, By): bytes by vfskit.io.direction (read, write) and
//     url.scheme;
//   - vfskit.streams.open (up-down counter): open streams by
//     vfskit.io.direction and url.scheme.
//
// No URI or path leaves the layer with user info in it.
package otel

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/vfskit/vfskit/layer/otel"

// Attribute keys of this package (the others are semantic conventions).
const (
	OperationKey = attribute.Key("vfskit.operation")
	DirectionKey = attribute.Key("vfskit.io.direction")
	BytesKey     = attribute.Key("vfskit.io.bytes")
)

// Options choose the providers; nil means OpenTelemetry's global ones.
type Options struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
}

// FS reports the operations on the file system below it.
type FS struct {
	layer.Base
	tracer   trace.Tracer
	ops      metric.Int64Counter
	duration metric.Float64Histogram
	io       metric.Int64Counter
	streams  metric.Int64UpDownCounter
	fsAttrs  []attribute.KeyValue
	readSet  metric.MeasurementOption
	writeSet metric.MeasurementOption
}

// New returns inner instrumented with the providers of opts.
func New(inner vfs.FileSystem, opts Options) (*FS, error) {
	tp, mp := opts.TracerProvider, opts.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(ScopeName)
	f := &FS{Base: layer.Base{Inner: inner}, tracer: tp.Tracer(ScopeName)}
	var err error
	if f.ops, err = m.Int64Counter("vfskit.operations", metric.WithDescription("File system operations, by operation and error type."), metric.WithUnit("{operation}")); err != nil {
		return nil, err
	}
	if f.duration, err = m.Float64Histogram("vfskit.operation.duration", metric.WithDescription("Latency of file system operations."), metric.WithUnit("s")); err != nil {
		return nil, err
	}
	if f.io, err = m.Int64Counter("vfskit.io", metric.WithDescription("Bytes read and written through streams and whole-file calls."), metric.WithUnit("By")); err != nil {
		return nil, err
	}
	if f.streams, err = m.Int64UpDownCounter("vfskit.streams.open", metric.WithDescription("Open streams."), metric.WithUnit("{stream}")); err != nil {
		return nil, err
	}
	u := inner.URI()
	f.fsAttrs = []attribute.KeyValue{semconv.URLSchemeKey.String(u.Scheme)}
	if u.Host != "" {
		f.fsAttrs = append(f.fsAttrs, semconv.ServerAddressKey.String(u.Host))
	}
	f.readSet = metric.WithAttributeSet(attribute.NewSet(DirectionKey.String("read"), f.fsAttrs[0]))
	f.writeSet = metric.WithAttributeSet(attribute.NewSet(DirectionKey.String("write"), f.fsAttrs[0]))
	return f, nil
}

// ErrorType returns the error.type of err: a short name for vfs's and
// io/fs's sentinels, "_OTHER" for anything else, "" for nil.
func ErrorType(err error) string {
	for _, k := range []struct {
		err  error
		name string
	}{
		{fs.ErrNotExist, "not_found"}, {fs.ErrExist, "exists"}, {fs.ErrPermission, "permission"},
		{vfs.ErrDirNotEmpty, "dir_not_empty"}, {vfs.ErrNotDir, "not_dir"}, {vfs.ErrIsDir, "is_dir"},
		{fs.ErrInvalid, "invalid"}, {context.Canceled, "canceled"}, {context.DeadlineExceeded, "deadline_exceeded"},
	} {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	if err != nil {
		return semconv.ErrorTypeOther.Value.AsString()
	}
	return ""
}

// op is one operation in progress.
type op struct {
	f     *FS
	name  vfs.Op
	span  trace.Span
	start time.Time
}

// begin starts the span and the clock of an operation on p.
func (f *FS) begin(ctx context.Context, name vfs.Op, p vfs.Path, kind ...attribute.KeyValue) (context.Context, *op) {
	attrs := append(append(kind, f.fsAttrs...), semconv.FilePathKey.String(p.Redacted()))
	ctx, span := f.tracer.Start(ctx, "vfskit."+string(name), trace.WithAttributes(attrs...), trace.WithSpanKind(trace.SpanKindClient))
	return ctx, &op{f: f, name: name, span: span, start: time.Now()}
}

// end records the outcome of the operation and ends its span.
func (o *op) end(ctx context.Context, err error, extra ...attribute.KeyValue) {
	attrs := append([]attribute.KeyValue{OperationKey.String(string(o.name))}, o.f.fsAttrs[0])
	if err != nil {
		et := semconv.ErrorTypeKey.String(ErrorType(err))
		attrs = append(attrs, et)
		o.span.SetAttributes(et)
		o.span.SetStatus(codes.Error, vfs.RedactError(err).Error())
	}
	set := metric.WithAttributeSet(attribute.NewSet(attrs...))
	o.f.ops.Add(ctx, 1, set)
	o.f.duration.Record(ctx, time.Since(o.start).Seconds(), set)
	o.span.SetAttributes(extra...)
	o.span.End()
}

// Stat is traced and counted.
func (f *FS) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	ctx, o := f.begin(ctx, vfs.OpStat, p)
	st, err := f.Inner.Stat(ctx, p)
	o.end(ctx, err)
	return st, err
}

// List is traced and counted.
func (f *FS) List(ctx context.Context, dir vfs.Path) ([]vfs.FileStatus, error) {
	ctx, o := f.begin(ctx, vfs.OpList, dir)
	entries, err := f.Inner.List(ctx, dir)
	o.end(ctx, err, attribute.Int("vfskit.entries", len(entries)))
	return entries, err
}

// Mkdirs is traced and counted.
func (f *FS) Mkdirs(ctx context.Context, p vfs.Path) error {
	ctx, o := f.begin(ctx, vfs.OpMkdirs, p)
	err := f.Inner.Mkdirs(ctx, p)
	o.end(ctx, err)
	return err
}

// Delete is traced and counted.
func (f *FS) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	ctx, o := f.begin(ctx, vfs.OpDelete, p, attribute.Bool("vfskit.recursive", recursive))
	err := f.Inner.Delete(ctx, p, recursive)
	o.end(ctx, err)
	return err
}

// DeleteVersion is traced and counted as a delete (vfskit.conditional true).
func (f *FS) DeleteVersion(ctx context.Context, p vfs.Path, v vfs.Version) error {
	ctx, o := f.begin(ctx, vfs.OpDelete, p, attribute.Bool("vfskit.conditional", true))
	err := f.Base.DeleteVersion(ctx, p, v)
	o.end(ctx, err)
	return err
}

// Rename is traced and counted; file.path is the source.
func (f *FS) Rename(ctx context.Context, src, dst vfs.Path) error {
	ctx, o := f.begin(ctx, vfs.OpRename, src, attribute.String("vfskit.destination", dst.Redacted()))
	err := f.Inner.Rename(ctx, src, dst)
	o.end(ctx, err)
	return err
}

// ReadFile is traced and counted, with its bytes.
func (f *FS) ReadFile(ctx context.Context, p vfs.Path) ([]byte, error) {
	ctx, o := f.begin(ctx, vfs.OpReadFile, p)
	data, err := f.Base.ReadFile(ctx, p)
	f.io.Add(ctx, int64(len(data)), f.readSet)
	o.end(ctx, err, BytesKey.Int(len(data)))
	return data, err
}

// WriteFile is traced and counted, with its bytes when it succeeds.
func (f *FS) WriteFile(ctx context.Context, p vfs.Path, data []byte, mode vfs.WriteMode) error {
	ctx, o := f.begin(ctx, vfs.OpWriteFile, p)
	err := f.Base.WriteFile(ctx, p, data, mode)
	if err == nil {
		f.io.Add(ctx, int64(len(data)), f.writeSet)
	}
	o.end(ctx, err, BytesKey.Int(len(data)))
	return err
}

// CopyFile is traced and counted; file.path is the destination.
func (f *FS) CopyFile(ctx context.Context, dst, src vfs.Path, mode vfs.WriteMode) (int64, error) {
	ctx, o := f.begin(ctx, vfs.OpCopyFile, dst, attribute.String("vfskit.source", src.Redacted()))
	n, err := f.Base.CopyFile(ctx, dst, src, mode)
	o.end(ctx, err, BytesKey.Int64(n))
	return n, err
}

// SyncDir is traced and counted.
func (f *FS) SyncDir(ctx context.Context, dir vfs.Path) error {
	ctx, o := f.begin(ctx, vfs.OpSyncDir, dir)
	err := f.Base.SyncDir(ctx, dir)
	o.end(ctx, err)
	return err
}

// CleanTemp is traced and counted.
func (f *FS) CleanTemp(ctx context.Context, dir vfs.Path, cutoff time.Time, dryRun bool) ([]vfs.Path, error) {
	ctx, o := f.begin(ctx, vfs.OpCleanTemp, dir, attribute.Bool("vfskit.dry_run", dryRun))
	found, err := f.Base.CleanTemp(ctx, dir, cutoff, dryRun)
	o.end(ctx, err, attribute.Int("vfskit.entries", len(found)))
	return found, err
}

// RealPath is traced and counted.
func (f *FS) RealPath(ctx context.Context, p vfs.Path) (vfs.Path, error) {
	ctx, o := f.begin(ctx, vfs.OpRealPath, p)
	real, err := f.Base.RealPath(ctx, p)
	o.end(ctx, err)
	return real, err
}

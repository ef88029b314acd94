package otel_test

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/internal/layertest"
	"github.com/vfskit/vfskit/layer/otel"
	"github.com/vfskit/vfskit/vfs"
)

// recorded is a layer over inner with in-memory span and metric readers.
func recorded(t *testing.T, inner vfs.FileSystem) (*otel.FS, *tracetest.SpanRecorder, *sdkmetric.ManualReader) {
	t.Helper()
	spans := tracetest.NewSpanRecorder()
	reader := sdkmetric.NewManualReader()
	f, err := otel.New(inner, otel.Options{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)),
	})
	require.NoError(t, err)
	return f, spans, reader
}

func TestConformance(t *testing.T) {
	layertest.Conformance(t, func(t *testing.T, inner vfs.FileSystem, dir vfs.Path) (vfs.FileSystem, vfs.Path) {
		f, _, _ := recorded(t, inner)
		return f, dir
	})
}

// sums returns the int64 sums of metric name by the value of key
// (",error.type=..." appended when present).
func sums(t *testing.T, reader *sdkmetric.ManualReader, name string, key attribute.Key) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(t.Context(), &rm))
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		require.Equal(t, otel.ScopeName, sm.Scope.Name)
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					v, _ := dp.Attributes.Value(key)
					k := v.Emit()
					if et, ok := dp.Attributes.Value("error.type"); ok {
						k += ",error.type=" + et.Emit()
					}
					got[k] += dp.Value
				}
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					v, _ := dp.Attributes.Value(key)
					got[v.Emit()] += int64(dp.Count)
				}
			}
		}
	}
	return got
}

func TestSpansAndMetrics(t *testing.T) {
	ctx := t.Context()
	inner := memfs.New()
	f, spans, reader := recorded(t, inner)
	a := vfs.MustPath("/dir/a")

	require.NoError(t, vfs.WriteFile(ctx, f, a, []byte("hello"), vfs.NoOverwrite)) // write_file
	out, err := f.Create(ctx, vfs.MustPath("/dir/b"), vfs.NoOverwrite)             // create
	require.NoError(t, err)
	_, err = out.Write([]byte("world!"))
	require.NoError(t, err)
	require.NoError(t, out.Close())
	in, err := f.Open(ctx, vfs.MustPath("/dir/b")) // open
	require.NoError(t, err)
	data, err := io.ReadAll(in)
	require.NoError(t, err)
	require.Equal(t, "world!", string(data))
	require.NoError(t, in.Close())
	data, err = vfs.ReadFile(ctx, f, a) // read_file
	require.NoError(t, err)
	require.Equal(t, "hello", string(data))
	_, err = f.Stat(ctx, vfs.MustPath("/dir/missing")) // stat, not_found
	require.Error(t, err)
	_, err = f.List(ctx, vfs.MustPath("/dir")) // list
	require.NoError(t, err)
	// A foreign authority with a password: invalid, and never recorded.
	_, err = f.Stat(ctx, vfs.MustPath("memory://user:hunter2@elsewhere/x"))
	require.Error(t, err)

	ended := spans.Ended()
	var names []string
	for _, s := range ended {
		names = append(names, s.Name())
		require.Equal(t, otel.ScopeName, s.InstrumentationScope().Name)
		attrs := attribute.NewSet(s.Attributes()...)
		scheme, _ := attrs.Value("url.scheme")
		require.Equal(t, "memory", scheme.AsString(), s.Name())
		path, ok := attrs.Value("file.path")
		require.True(t, ok, s.Name())
		require.NotContains(t, path.AsString(), "hunter2")
		require.NotContains(t, s.Status().Description, "hunter2")
		switch s.Name() {
		case "vfskit.create", "vfskit.open":
			n, _ := attrs.Value(otel.BytesKey)
			require.EqualValues(t, 6, n.AsInt64(), s.Name())
			require.Equal(t, codes.Unset, s.Status().Code)
		case "vfskit.stat":
			if strings.HasSuffix(path.AsString(), "/missing") {
				et, _ := attrs.Value("error.type")
				require.Equal(t, "not_found", et.AsString())
				require.Equal(t, codes.Error, s.Status().Code)
			} else {
				et, _ := attrs.Value("error.type")
				require.Equal(t, "invalid", et.AsString())
				require.Contains(t, path.AsString(), "xxxxx")
			}
		}
	}
	require.Equal(t, []string{"vfskit.write_file", "vfskit.create", "vfskit.open", "vfskit.read_file", "vfskit.stat", "vfskit.list", "vfskit.stat"}, names)

	require.Equal(t, map[string]int64{
		"write_file": 1, "create": 1, "open": 1, "read_file": 1, "list": 1,
		"stat,error.type=not_found": 1, "stat,error.type=invalid": 1,
	}, sums(t, reader, "vfskit.operations", otel.OperationKey))
	require.Equal(t, map[string]int64{"write_file": 1, "create": 1, "open": 1, "read_file": 1, "list": 1, "stat": 2},
		sums(t, reader, "vfskit.operation.duration", otel.OperationKey))
	require.Equal(t, map[string]int64{"write": 5 + 6, "read": 6 + 5}, sums(t, reader, "vfskit.io", otel.DirectionKey))
	require.Equal(t, map[string]int64{"write": 0, "read": 0}, sums(t, reader, "vfskit.streams.open", otel.DirectionKey))

	// A stream open now counts.
	in, err = f.Open(ctx, a)
	require.NoError(t, err)
	require.Equal(t, map[string]int64{"write": 0, "read": 1}, sums(t, reader, "vfskit.streams.open", otel.DirectionKey))
	require.NoError(t, in.Close())
}

func TestForwardsFastPaths(t *testing.T) {
	ctx := t.Context()
	spy := layertest.NewSpy(memfs.New())
	f, spans, _ := recorded(t, spy)
	p := vfs.MustPath("/x")
	require.NoError(t, vfs.WriteFile(ctx, f, p, []byte("x"), vfs.NoOverwrite))
	_, err := vfs.ReadFile(ctx, f, p)
	require.NoError(t, err)
	_, err = vfs.CopyWithMode(ctx, f, vfs.MustPath("/y"), f, p, vfs.NoOverwrite)
	require.NoError(t, err)
	for _, m := range []string{"WriteFile", "ReadFile", "CopyFile"} {
		require.Equal(t, 1, spy.Calls(m), m)
	}
	require.Zero(t, spy.Calls("Open")+spy.Calls("Create"))
	require.Len(t, spans.Ended(), 3)

	out, err := f.Create(ctx, vfs.MustPath("/z"), vfs.NoOverwrite)
	require.NoError(t, err)
	require.NoError(t, out.(vfs.Aborter).Abort())
	_ = out.Close()
	last := spans.Ended()[len(spans.Ended())-1]
	require.Equal(t, "vfskit.create", last.Name())
	require.Equal(t, codes.Error, last.Status().Code, "an aborted stream is not a success")
	require.Equal(t, 1, spy.Calls("Abort"))
}

func TestErrorType(t *testing.T) {
	require.Equal(t, "", otel.ErrorType(nil))
	require.Equal(t, "not_dir", otel.ErrorType(vfs.NewPathError("mkdirs", vfs.MustPath("/x"), vfs.ErrNotDir)))
	require.Equal(t, "dir_not_empty", otel.ErrorType(vfs.NewPathError("delete", vfs.MustPath("/x"), vfs.ErrDirNotEmpty)))
	require.Equal(t, "_OTHER", otel.ErrorType(io.ErrUnexpectedEOF))
}

// TestDirSyncSpans: vfs.DirSyncer's methods are traced under their own names,
// the stream of CreateUnsynced until its Close, and counted.
func TestDirSyncSpans(t *testing.T) {
	ctx := t.Context()
	f, spans, reader := recorded(t, memfs.New())
	out, err := f.CreateUnsynced(ctx, vfs.MustPath("/d/a"), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write([]byte("abc"))
	require.NoError(t, err)
	require.NoError(t, out.Close())
	require.NoError(t, f.SyncDir(ctx, vfs.MustPath("/d")))
	var names []string
	for _, s := range spans.Ended() {
		names = append(names, s.Name())
	}
	require.Equal(t, []string{"vfskit.create_unsynced", "vfskit.sync_dir"}, names)
	ops := sums(t, reader, "vfskit.operations", otel.OperationKey)
	require.Equal(t, map[string]int64{"create_unsynced": 1, "sync_dir": 1}, ops)
}

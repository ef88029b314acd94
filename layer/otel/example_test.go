package otel_test

import (
	"context"
	"fmt"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/limit"
	"github.com/vfskit/vfskit/layer/otel"
	"github.com/vfskit/vfskit/vfs"
)

// Layers compose: a connection limit, observed by OpenTelemetry. Over S3 the
// innermost file system would be s3.New(ctx, "bucket", s3.Options{...}) or
// vfs.Get(ctx, "s3://bucket/"); memory:// keeps the example self-contained.
func Example() {
	ctx := context.Background()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))

	limited, _ := limit.New(memfs.New(), limit.Settings{Total: 2, OpenTimeout: 30 * time.Second})
	fsys, _ := otel.New(limited, otel.Options{TracerProvider: tp})

	_ = vfs.WriteFile(ctx, fsys, vfs.MustPath("/chk-1/_metadata"), []byte("metadata"), vfs.NoOverwrite)
	data, _ := vfs.ReadFile(ctx, fsys, vfs.MustPath("/chk-1/_metadata"))
	_, err := fsys.Stat(ctx, vfs.MustPath("/chk-2/_metadata"))
	fmt.Println(string(data), err != nil)
	for _, s := range spans.Ended() {
		fmt.Println(s.Name())
	}
	// Output:
	// metadata true
	// vfskit.write_file
	// vfskit.read_file
	// vfskit.stat
}

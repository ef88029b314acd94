package otel_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/layer/limit"
	"github.com/vfskit/vfskit/layer/otel"
	"github.com/vfskit/vfskit/layer/readonly"
	"github.com/vfskit/vfskit/layer/sub"
	"github.com/vfskit/vfskit/vfs"
)

// Layers compose over S3: at most two open streams (Flink's
// LimitedConnectionsFileSystem), every call a span, and a read-only view of a
// subtree on top. The S3 server here is gofakes3 in this process; with your
// bucket, s3.New takes your endpoint and credentials, or vfs.Get(ctx,
// "s3://bucket/") configures it from the environment.
func Example_s3() {
	ctx := context.Background()
	srv, err := s3test.StartGoFakeS3()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))

	bucket, err := s3.New(ctx, srv.Bucket, s3.Options{Endpoint: srv.Endpoint, Region: srv.Region,
		Credentials: credentials.NewStaticCredentialsProvider(srv.AccessKeyID, srv.SecretAccessKey, "")})
	if err != nil {
		fmt.Println(err)
		return
	}
	limited, err := limit.New(bucket, limit.Settings{Total: 2, OpenTimeout: 30 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	fsys, err := otel.New(limited, otel.Options{TracerProvider: tp}) // zero Options: the global providers
	if err != nil {
		fmt.Println(err)
		return
	}
	// Use fsys like any vfs.FileSystem: every stream counts against the limit
	// (eight writers here, two streams open at a time), every call is a span,
	// and vfs.ReadFile still reaches S3's single-GET fast path.
	root := vfs.MustPath("s3://" + srv.Bucket + "/tenants/a")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			p := root.Join(fmt.Sprintf("part-%d", i))
			errs[i] = vfs.WriteFile(ctx, fsys, p, []byte(p.Name()), vfs.NoOverwrite)
		})
	}
	wg.Wait()
	fmt.Println(errs)

	tenant, err := sub.New(readonly.New(fsys), root) // more layers
	if err != nil {
		fmt.Println(err)
		return
	}
	data, err := vfs.ReadFile(ctx, tenant, vfs.MustPath("/part-7"))
	fmt.Println(string(data), err)
	fmt.Println(vfs.WriteFile(ctx, tenant, vfs.MustPath("/part-8"), nil, vfs.NoOverwrite) != nil)
	in, out := limited.Streams()
	fmt.Println("open streams:", in, out)

	count := map[string]int{}
	for _, s := range spans.Ended() {
		count[s.Name()]++
	}
	fmt.Println(count)
	// Output:
	// [<nil> <nil> <nil> <nil> <nil> <nil> <nil> <nil>]
	// part-7 <nil>
	// true
	// open streams: 0 0
	// map[vfskit.read_file:1 vfskit.write_file:8]
}

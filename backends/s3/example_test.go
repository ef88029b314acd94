package s3_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// Reach an S3-compatible server with explicit Options. With a real bucket you
// would rather use vfs.Get(ctx, "s3://bucket/") and the AWS default chain.
func ExampleNew() {
	srv, err := s3test.StartGoFakeS3() // a local S3-compatible server
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	ctx := context.Background()
	fsys, err := s3.New(ctx, srv.Bucket, s3.Options{
		Endpoint:    srv.Endpoint, // http://127.0.0.1:PORT: path style is automatic
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider(srv.AccessKeyID, srv.SecretAccessKey, ""),
	})
	if err != nil {
		panic(err)
	}
	p := vfs.MustPath("s3://" + srv.Bucket + "/reports/q4.txt")
	if err := vfs.WriteFile(ctx, fsys, p, []byte("fine"), vfs.NoOverwrite); err != nil {
		panic(err)
	}
	data, _ := vfs.ReadFile(ctx, fsys, p)
	st, _ := fsys.Stat(ctx, vfs.MustPath("/reports"))
	fmt.Println(string(data), st.IsDir, fsys.Kind())
	// Output: fine true ObjectStore
}

// The schemes are registered at import; the first use of a bucket may carry its
// configuration as query parameters.
func Example_queryParameters() {
	ctx := context.Background()
	_, err := vfs.Get(ctx, "s3://my-bucket/?region=eu-west-1&endpoint=http://127.0.0.1:8333&use_path_style=true")
	fmt.Println(err)
	_, err = vfs.Get(ctx, "s3:///no-bucket")
	fmt.Println(err)
	// Output:
	// <nil>
	// s3: s3:///: invalid argument: no bucket in the URI (want s3://BUCKET/path)
}

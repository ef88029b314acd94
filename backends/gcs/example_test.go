package gcs_test

import (
	"context"
	"fmt"
	"os"

	"github.com/vfskit/vfskit/backends/gcs"
	"github.com/vfskit/vfskit/internal/gcstest"
	"github.com/vfskit/vfskit/vfs"
)

// Reach a GCS emulator the way Google's client libraries do, with
// STORAGE_EMULATOR_HOST. With a real bucket, leave it unset: Application
// Default Credentials are used.
func Example() {
	srv, err := gcstest.Start() // fake-gcs-server on 127.0.0.1
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	bucket := srv.NewBucket()
	os.Setenv("STORAGE_EMULATOR_HOST", srv.Host)

	ctx := context.Background()
	fsys, err := gcs.New(ctx, bucket, gcs.Options{})
	if err != nil {
		panic(err)
	}
	p := vfs.MustPath("gs://" + bucket + "/reports/q4.txt")
	if err := vfs.WriteFile(ctx, fsys, p, []byte("fine"), vfs.NoOverwrite); err != nil {
		panic(err)
	}
	err = vfs.WriteFile(ctx, fsys, p, []byte("again"), vfs.NoOverwrite)
	data, _ := vfs.ReadFile(ctx, fsys, p)
	st, _ := fsys.Stat(ctx, vfs.MustPath("/reports"))
	fmt.Println(string(data), st.IsDir, fsys.Kind(), err != nil)
	// Output: fine true ObjectStore true
}

// A URI names its bucket as its authority.
func Example_badURI() {
	_, err := vfs.Get(context.Background(), "gs:///no-bucket")
	fmt.Println(err)
	_, err = vfs.Get(context.Background(), "gs://Upper/x")
	fmt.Println(err)
	// Output:
	// gcs: gs:///: invalid argument: no bucket in the URI (want gs://BUCKET/path)
	// gcs: gs://Upper/: invalid argument: bucket name "Upper" holds a character other than lowercase letters, digits, '-', '_' and '.' (want gs://BUCKET/path)
}

package blobfs_test

import (
	"context"
	"fmt"

	"gocloud.dev/blob/memblob"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/vfs"
)

// Serve an in-memory gocloud bucket as a vfskit file system.
func ExampleNew() {
	ctx := context.Background()
	fsys, err := blobfs.New(memblob.OpenBucket(nil), blobfs.Options{Scheme: "scratch", Authority: "demo"})
	if err != nil {
		panic(err)
	}
	defer fsys.Close()
	p := vfs.MustPath("scratch://demo/reports/2026/q4.txt")
	if err := vfs.WriteFile(ctx, fsys, p, []byte("fine"), vfs.NoOverwrite); err != nil {
		panic(err)
	}
	entries, _ := fsys.List(ctx, vfs.MustPath("/reports"))
	for _, e := range entries {
		fmt.Println(e.Path, e.IsDir)
	}
	fmt.Println(fsys.Kind())
	// Output:
	// scratch://demo/reports/2026 true
	// ObjectStore
}

// Register any gocloud bucket URL under a vfskit scheme with one call. Link the
// gocloud driver in (here memblob; for GCS: import _ "gocloud.dev/blob/gcsblob"
// and use "gs://{authority}").
func ExampleRegisterURL() {
	if err := blobfs.RegisterURL("tmpblob", "mem://", blobfs.Options{}); err != nil {
		panic(err)
	}
	ctx := context.Background()
	p := vfs.MustPath("tmpblob://bucket/hello.txt")
	fsys, err := p.FileSystem(ctx)
	if err != nil {
		panic(err)
	}
	_ = vfs.WriteFile(ctx, fsys, p, []byte("hi"), vfs.NoOverwrite)
	data, _ := vfs.ReadFile(ctx, fsys, p)
	fmt.Println(string(data))
	// Output: hi
}

package memfs_test

import (
	"context"
	"fmt"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// A memory:// path reaches the same in-memory file system from anywhere in the
// process; memfs only needs to be imported.
func Example() {
	ctx := context.Background()
	p := vfs.MustPath("memory://example/reports/q1.txt")
	fsys, err := p.FileSystem(ctx)
	if err != nil {
		panic(err)
	}
	if err := vfs.WriteFile(ctx, fsys, p, []byte("revenue up"), vfs.NoOverwrite); err != nil {
		panic(err)
	}
	entries, _ := fsys.List(ctx, p.Parent())
	for _, e := range entries {
		fmt.Println(e.Path, e.Size)
	}
	// Output: memory://example/reports/q1.txt 10
}

// New gives a test its own empty file system.
func ExampleNew() {
	ctx := context.Background()
	fsys := memfs.New()
	err := vfs.WriteFile(ctx, fsys, vfs.MustPath("/a.txt"), []byte("x"), vfs.NoOverwrite)
	fmt.Println(err)
	err = vfs.WriteFile(ctx, fsys, vfs.MustPath("/a.txt"), []byte("y"), vfs.NoOverwrite)
	fmt.Println(err != nil)
	// Output:
	// <nil>
	// true
}

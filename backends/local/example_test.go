package local_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	_ "github.com/vfskit/vfskit/backends/local" // registers file://
	"github.com/vfskit/vfskit/vfs"
)

// Paths without a scheme are local paths. A file appears only once it is
// complete, and NoOverwrite never clobbers an existing one.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "vfskit-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	p := vfs.MustPath(dir).Join("out", "result.txt")
	fsys, err := p.FileSystem(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(fsys.URI())
	if err := vfs.WriteFile(ctx, fsys, p, []byte("42"), vfs.NoOverwrite); err != nil {
		panic(err)
	}
	err = vfs.WriteFile(ctx, fsys, p, []byte("43"), vfs.NoOverwrite)
	fmt.Println(errors.Is(err, fs.ErrExist))
	data, err := vfs.ReadFile(ctx, fsys, p)
	fmt.Println(string(data), err)
	// Output:
	// file:///
	// true
	// 42 <nil>
}

package readonly_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/readonly"
	"github.com/vfskit/vfskit/vfs"
)

func ExampleNew() {
	ctx := context.Background()
	inner := memfs.New()
	p := vfs.MustPath("/report.txt")
	_ = vfs.WriteFile(ctx, inner, p, []byte("final"), vfs.NoOverwrite)

	ro := readonly.New(inner)
	data, _ := vfs.ReadFile(ctx, ro, p)
	err := ro.Delete(ctx, p, false)
	fmt.Println(string(data), errors.Is(err, fs.ErrPermission))
	// Output: final true
}

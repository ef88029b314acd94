package sub_test

import (
	"context"
	"fmt"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/sub"
	"github.com/vfskit/vfskit/vfs"
)

func ExampleNew() {
	ctx := context.Background()
	inner := memfs.New()
	_ = vfs.WriteFile(ctx, inner, vfs.MustPath("/tenants/a/config"), []byte("a's"), vfs.NoOverwrite)

	view, _ := sub.New(inner, vfs.MustPath("/tenants/a"))
	data, _ := vfs.ReadFile(ctx, view, vfs.MustPath("/config"))
	_, err := view.Stat(ctx, vfs.MustPath("memory://elsewhere/config"))
	fmt.Println(string(data), view.Root().Path(), err != nil)
	// Output: a's /tenants/a true
}

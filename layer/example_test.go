package layer_test

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// statCounter is a layer that counts Stat calls and changes nothing else.
type statCounter struct {
	layer.Base
	stats atomic.Int64
}

func (c *statCounter) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	c.stats.Add(1)
	return c.Base.Stat(ctx, p)
}

// A layer embeds layer.Base and overrides only what it changes.
func ExampleBase() {
	ctx := context.Background()
	fsys := &statCounter{Base: layer.Base{Inner: memfs.New()}}
	p := vfs.MustPath("/greeting")
	_ = vfs.WriteFile(ctx, fsys, p, []byte("hello"), vfs.NoOverwrite)
	ok, _ := vfs.Exists(ctx, fsys, p)
	data, _ := vfs.ReadFile(ctx, fsys, p)
	fmt.Println(ok, string(data), fsys.stats.Load())
	// Output: true hello 1
}

package limit_test

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/limit"
	"github.com/vfskit/vfskit/vfs"
)

func ExampleNew() {
	ctx := context.Background()
	fsys, _ := limit.New(memfs.New(), limit.Settings{Total: 1, OpenTimeout: 10 * time.Millisecond})
	_ = vfs.WriteFile(ctx, fsys, vfs.MustPath("/a"), []byte("a"), vfs.NoOverwrite)

	in, _ := fsys.Open(ctx, vfs.MustPath("/a"))
	_, err := fsys.Open(ctx, vfs.MustPath("/a")) // no slot left
	fmt.Println(err != nil)
	_ = in.Close()
	data, _ := vfs.ReadFile(ctx, fsys, vfs.MustPath("/a"))
	fmt.Println(string(data))
	// Output:
	// true
	// a
}

// Configure applies Flink's options to a registry: every memory:// file
// system it creates afterwards is limited.
func ExampleConfigure() {
	r := vfs.NewRegistry()
	_ = r.Register("memory", func(context.Context, *url.URL) (vfs.FileSystem, error) { return memfs.New(), nil })
	_ = limit.Configure(r, map[string]string{
		"fs.memory.limit.total":   "2",
		"fs.memory.limit.timeout": "30000",
	})
	fsys, _ := r.Get(context.Background(), "memory://demo/")
	fmt.Printf("%+v\n", fsys.(*limit.FS).Settings())
	// Output: {Total:2 Input:0 Output:0 OpenTimeout:30s StreamTimeout:0s}
}

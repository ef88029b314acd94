package record_test

import (
	"context"
	"fmt"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/record"
	"github.com/vfskit/vfskit/vfs"
)

// A test asserts how many requests of each kind the code under test made.
func ExampleNew() {
	ctx := context.Background()
	rec := record.New(memfs.New())
	p := vfs.MustPath("/reports/today.txt")
	if err := vfs.WriteFile(ctx, rec, p, []byte("hello"), vfs.NoOverwrite); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := vfs.Exists(ctx, rec, p); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec.Counts())
	fmt.Println(rec.Calls()[0].Op, rec.Calls()[0].Path)
	// Output:
	// map[stat:1 write_file:1]
	// write_file /reports/today.txt
}

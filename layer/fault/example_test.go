package fault_test

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/fault"
	"github.com/vfskit/vfskit/vfs"
)

// Make the second upload of any _metadata file fail, and check that the code
// under test sees the failure and that nothing was published.
func ExampleNew() {
	ctx := context.Background()
	inner := memfs.New()
	fsys, _ := fault.New(inner, 42, fault.Rule{
		Ops:   []fault.Op{fault.Close},
		Path:  "/*/_metadata",
		After: 1,
		Err:   io.ErrUnexpectedEOF,
	})
	first := vfs.WriteFile(ctx, fsys, vfs.MustPath("/chk-1/_metadata"), []byte("m1"), vfs.NoOverwrite)
	second := vfs.WriteFile(ctx, fsys, vfs.MustPath("/chk-2/_metadata"), []byte("m2"), vfs.NoOverwrite)
	published, _ := vfs.Exists(ctx, inner, vfs.MustPath("/chk-2/_metadata"))
	fmt.Println(first == nil, errors.Is(second, fault.ErrInjected), published)
	// Output: true true false
}

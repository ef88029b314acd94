package conformance_test

import (
	"context"
	"testing"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/vfs"
)

// An integrator runs the suite from one test in their backend's package. This one
// runs it on an in-memory file system; put your own file system in its place.
func ExampleRun() {
	// In a _test.go file of your backend:
	_ = func(t *testing.T) { // func TestConformance(t *testing.T)
		fsys := memfs.New() // your backend here, e.g. myfs.New(...)
		conformance.Run(t, conformance.Harness{
			New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
				// Each case gets its own directory; it need not exist yet.
				dir := vfs.MustPath("/conformance").Join(t.Name())
				t.Cleanup(func() { _ = fsys.Delete(context.Background(), dir, true) })
				return fsys, dir
			},
			// Shrink the 16 MiB and 1,100-entry cases only for a slow test server:
			// LargeFileSize: 1 << 20,
			// ListSize:      1001,
		})
	}
	// Output:
}

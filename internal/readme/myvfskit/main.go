// Command myvfskit is docs/cli.md's integrator example: the vfskit command line
// with one more scheme, myfs://, here an in-memory file system that starts
// with a greeting in it. internal/readme's tests build and run it.
package main

import (
	"context"
	"net/url"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/cli"
	"github.com/vfskit/vfskit/cli/clis3"
	"github.com/vfskit/vfskit/vfs"
)

func main() {
	cli.Main(cli.WithSchemes(clis3.Schemes()), cli.WithScheme("myfs", newMyFS))
}

// newMyFS serves myfs://AUTHORITY/: any vfs.FileSystem will do.
func newMyFS(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
	fsys, err := aferofs.New(afero.NewMemMapFs(), aferofs.Options{Scheme: "myfs", Authority: u.Host})
	if err != nil {
		return nil, err
	}
	hello := vfs.MustPath("myfs://" + u.Host + "/hello.txt")
	return fsys, vfs.WriteFile(ctx, fsys, hello, []byte("hello from "+u.Host+"\n"), vfs.NoOverwrite)
}

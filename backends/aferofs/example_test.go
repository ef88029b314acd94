package aferofs_test

import (
	"context"
	"fmt"
	"net/url"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/vfs"
)

// Serving an afero file system under a scheme of your own takes one call. Here
// the afero.Fs is a memory file system; an sftp, zip or BasePathFs plugs in the
// same way.
func ExampleNew() {
	ctx := context.Background()
	fsys, err := aferofs.New(afero.NewMemMapFs(), aferofs.Options{Scheme: "scratch", Authority: "demo"})
	if err != nil {
		panic(err)
	}
	p := vfs.MustPath("scratch://demo/notes/hello.txt")
	if err := vfs.WriteFile(ctx, fsys, p, []byte("hello"), vfs.NoOverwrite); err != nil {
		panic(err)
	}
	st, err := fsys.Stat(ctx, p)
	if err != nil {
		panic(err)
	}
	fmt.Println(st.Path, st.Size)
	// Output: scratch://demo/notes/hello.txt 5
}

// Registering a factory makes the scheme reachable through vfs.Get and
// Path.FileSystem; each authority gets its own afero.Fs, here a directory jail.
func ExampleNew_register() {
	ctx := context.Background()
	disk := afero.NewMemMapFs() // afero.NewOsFs() in a real program
	reg := vfs.NewRegistry()
	err := reg.Register("jail", func(_ context.Context, u *url.URL) (vfs.FileSystem, error) {
		return aferofs.New(afero.NewBasePathFs(disk, "/jails/"+u.Host), aferofs.Options{Scheme: "jail", Authority: u.Host})
	})
	if err != nil {
		panic(err)
	}
	fsys, err := reg.Get(ctx, "jail://alice/")
	if err != nil {
		panic(err)
	}
	if err := vfs.WriteFile(ctx, fsys, vfs.MustPath("/diary"), []byte("dear diary"), vfs.NoOverwrite); err != nil {
		panic(err)
	}
	data, err := afero.ReadFile(disk, "/jails/alice/diary")
	fmt.Println(string(data), err)
	// Output: dear diary <nil>
}

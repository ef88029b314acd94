package aferofs_test

import (
	"strconv"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/vfs"
)

// TestConformanceOnAfero runs the suite on the engine over afero's own file
// systems (no Publisher, no Statuser): MemMapFs, and a BasePathFs over the
// disk, each under its own authority.
func TestConformanceOnAfero(t *testing.T) {
	for name, newAfs := range map[string]func(t *testing.T) afero.Fs{
		"memmap":   func(*testing.T) afero.Fs { return afero.NewMemMapFs() },
		"basepath": func(t *testing.T) afero.Fs { return afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()) },
	} {
		t.Run(name, func(t *testing.T) {
			n := 0
			conformance.Run(t, conformance.Harness{
				New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
					n++
					fsys, err := aferofs.New(newAfs(t), aferofs.Options{Scheme: "afero", Authority: name + "-" + strconv.Itoa(n)})
					if err != nil {
						t.Fatal(err)
					}
					return fsys, vfs.MustPath("/conformance")
				},
			})
		})
	}
}

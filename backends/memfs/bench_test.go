package memfs_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// BenchmarkWriteFile compares writing a whole file through memfs (temporary
// file, publish by rename) with writing it to an afero.MemMapFs directly.
func BenchmarkWriteFile(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		data := make([]byte, size)
		b.Run(fmt.Sprintf("size=%d/vfskit", size), func(b *testing.B) {
			ctx := context.Background()
			fsys := memfs.New()
			b.SetBytes(int64(size))
			for i := 0; b.Loop(); i++ {
				if err := vfs.WriteFile(ctx, fsys, vfs.MustPath(fmt.Sprintf("/d/f%d", i%64)), data, vfs.Overwrite); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("size=%d/baseline", size), func(b *testing.B) {
			afs := afero.NewMemMapFs()
			if err := afs.MkdirAll("/d", 0o777); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			for i := 0; b.Loop(); i++ {
				f, err := afs.OpenFile(fmt.Sprintf("/d/f%d", i%64), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := f.Write(data); err != nil {
					b.Fatal(err)
				}
				if err := f.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadFile compares reading a whole file through memfs with reading it
// from an afero.MemMapFs directly.
func BenchmarkReadFile(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		data := make([]byte, size)
		b.Run(fmt.Sprintf("size=%d/vfskit", size), func(b *testing.B) {
			ctx := context.Background()
			fsys := memfs.New()
			p := vfs.MustPath("/f")
			if err := vfs.WriteFile(ctx, fsys, p, data, vfs.NoOverwrite); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				in, err := fsys.Open(ctx, p)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, in); err != nil {
					b.Fatal(err)
				}
				in.Close()
			}
		})
		b.Run(fmt.Sprintf("size=%d/baseline", size), func(b *testing.B) {
			afs := afero.NewMemMapFs()
			if err := afero.WriteFile(afs, "/f", data, 0o666); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				f, err := afs.Open("/f")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, f); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}

// BenchmarkStat compares Stat through memfs with afero.MemMapFs.Stat.
func BenchmarkStat(b *testing.B) {
	ctx := context.Background()
	b.Run("vfskit", func(b *testing.B) {
		fsys := memfs.New()
		p := vfs.MustPath("/a/b/c")
		if err := vfs.WriteFile(ctx, fsys, p, nil, vfs.NoOverwrite); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := fsys.Stat(ctx, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline", func(b *testing.B) {
		afs := afero.NewMemMapFs()
		if err := afero.WriteFile(afs, "/a/b/c", nil, 0o666); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := afs.Stat("/a/b/c"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

package local_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/vfs"
)

const benchChunk = 32 << 10

// BenchmarkWrite compares writing a file in 32 KiB chunks through the local
// backend (temporary file, fsync, rename, directory fsync) with the same bytes
// written to an os.File and fsynced (no rename): the difference is the price of
// atomic, durable publication.
func BenchmarkWrite(b *testing.B) {
	for _, size := range []int{64 << 10, 8 << 20} {
		chunk := make([]byte, benchChunk)
		b.Run(fmt.Sprintf("size=%d/vfskit", size), func(b *testing.B) {
			ctx := context.Background()
			fsys := local.New()
			dir := vfs.MustPath(b.TempDir())
			b.SetBytes(int64(size))
			for i := 0; b.Loop(); i++ {
				out, err := fsys.Create(ctx, dir.Join(fmt.Sprintf("f%d", i%16)), vfs.Overwrite)
				if err != nil {
					b.Fatal(err)
				}
				for n := 0; n < size; n += benchChunk {
					if _, err := out.Write(chunk); err != nil {
						b.Fatal(err)
					}
				}
				if err := out.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("size=%d/baseline", size), func(b *testing.B) {
			dir := b.TempDir()
			b.SetBytes(int64(size))
			for i := 0; b.Loop(); i++ {
				f, err := os.Create(filepath.Join(dir, fmt.Sprintf("f%d", i%16)))
				if err != nil {
					b.Fatal(err)
				}
				for n := 0; n < size; n += benchChunk {
					if _, err := f.Write(chunk); err != nil {
						b.Fatal(err)
					}
				}
				if err := f.Sync(); err != nil {
					b.Fatal(err)
				}
				if err := f.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRead compares reading a whole file through the local backend with
// reading it from an os.File.
func BenchmarkRead(b *testing.B) {
	for _, size := range []int{64 << 10, 8 << 20} {
		dir := b.TempDir()
		name := filepath.Join(dir, "f")
		if err := os.WriteFile(name, make([]byte, size), 0o644); err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, benchChunk)
		b.Run(fmt.Sprintf("size=%d/vfskit", size), func(b *testing.B) {
			ctx := context.Background()
			fsys := local.New()
			p := vfs.MustPath(name)
			b.SetBytes(int64(size))
			for b.Loop() {
				in, err := fsys.Open(ctx, p)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{in}, buf); err != nil {
					b.Fatal(err)
				}
				in.Close()
			}
		})
		b.Run(fmt.Sprintf("size=%d/baseline", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				f, err := os.Open(name)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, buf); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}

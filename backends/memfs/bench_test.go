package memfs_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/internal/bench"
	"github.com/vfskit/vfskit/vfs"
)

// rounds times ours and the baseline alternately, once each per b.Loop
// iteration (internal/bench.Ratios), so the noise of a shared machine hits both
// alike. It reports the median over iterations of baseline time ÷ our time as
// "ratio" (above 1: memfs is faster than afero.MemMapFs used directly), the
// same for the process's CPU time as "cpu-ratio" (which the load of other
// processes does not distort), and both median wall times per unit of work
// ("ns/<unit>-memfs", "ns/<unit>-afero").
func rounds(b *testing.B, units int, unit string, ours, baseline func(b *testing.B)) {
	b.Helper()
	r := bench.Ratios{Timer: b}
	for i := 0; b.Loop(); i++ {
		_ = r.Round(i, func() error { ours(b); return nil }, func() error { baseline(b); return nil })
	}
	s := r.Summary()
	b.ReportMetric(s.Ratio, "ratio")
	b.ReportMetric(s.CPURatio, "cpu-ratio")
	b.ReportMetric(float64(s.Ours)/float64(units), "ns/"+unit+"-memfs")
	b.ReportMetric(float64(s.Baseline)/float64(units), "ns/"+unit+"-afero")
}

// BenchmarkLargeFile writes a 256 MiB file in 1 MiB writes and reads it back in
// 1 MiB reads, through memfs and through afero.MemMapFs directly (make
// bench's target: ratio ≥ 1.0).
func BenchmarkLargeFile(b *testing.B) {
	const size, chunk = 256 << 20, 1 << 20
	ctx := context.Background()
	buf := make([]byte, chunk)
	for i := range buf {
		buf[i] = byte(i)
	}
	back := make([]byte, chunk)
	fsys := memfs.New()
	p := vfs.MustPath("/big")
	afs := afero.NewMemMapFs()
	b.SetBytes(2 * size) // per side: written and read
	rounds(b, size>>20, "MiB", func(b *testing.B) {
		out, err := fsys.Create(ctx, p, vfs.Overwrite)
		check(b, err)
		for range size / chunk {
			_, err = out.Write(buf)
			check(b, err)
		}
		check(b, out.Close())
		in, err := fsys.Open(ctx, p)
		check(b, err)
		readAll(b, in, back, size)
		check(b, in.Close())
		check(b, fsys.Delete(ctx, p, false))
	}, func(b *testing.B) {
		f, err := afs.OpenFile("/big", os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
		check(b, err)
		for range size / chunk {
			_, err = f.Write(buf)
			check(b, err)
		}
		check(b, f.Close())
		f, err = afs.Open("/big")
		check(b, err)
		readAll(b, f, back, size)
		check(b, f.Close())
		check(b, afs.Remove("/big"))
	})
}

func readAll(b *testing.B, r io.Reader, buf []byte, want int) {
	got := 0
	for {
		n, err := io.ReadFull(r, buf)
		got += n
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		check(b, err)
	}
	if got != want {
		b.Fatalf("read %d bytes, want %d", got, want)
	}
}

// BenchmarkManyFiles creates n files of 1 KiB in one directory (create, write,
// close), then stats each, through memfs (memory://bench/d/fN) and through
// afero.MemMapFs directly (/d/fN), on emptied or fresh file systems every round (make bench's target: ratio ≥ 1.0 and ns/file-memfs
// the same at every n).
func BenchmarkManyFiles(b *testing.B) {
	ctx := context.Background()
	data := make([]byte, 1<<10)
	for _, n := range []int{1_000, 10_000, 100_000} {
		names := make([]string, n)
		paths := make([]vfs.Path, n)
		for i := range n {
			names[i] = "/d/f" + strconv.Itoa(i)
			paths[i] = vfs.MustPath("memory://bench" + names[i]) // as a URI names it
		}
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			fsys, err := memfs.Shared("bench")
			check(b, err)
			rounds(b, n, "file", func(b *testing.B) {
				defer memfs.Reset("bench")
				for _, p := range paths {
					out, err := fsys.Create(ctx, p, vfs.NoOverwrite)
					check(b, err)
					_, err = out.Write(data)
					check(b, err)
					check(b, out.Close())
				}
				for _, p := range paths {
					st, err := fsys.Stat(ctx, p)
					check(b, err)
					if st.Size != int64(len(data)) {
						b.Fatalf("%s: size %d", p, st.Size)
					}
				}
			}, func(b *testing.B) {
				afs := afero.NewMemMapFs()
				check(b, afs.MkdirAll("/d", 0o777))
				for _, name := range names {
					f, err := afs.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
					check(b, err)
					_, err = f.Write(data)
					check(b, err)
					check(b, f.Close())
				}
				for _, name := range names {
					fi, err := afs.Stat(name)
					check(b, err)
					if fi.Size() != int64(len(data)) {
						b.Fatalf("%s: size %d", name, fi.Size())
					}
				}
			})
		})
	}
}

// BenchmarkStat stats one file 10,000 times through memfs and through
// afero.MemMapFs directly.
func BenchmarkStat(b *testing.B) {
	const n = 10_000
	ctx := context.Background()
	fsys := memfs.New()
	p := vfs.MustPath("/a/b/c")
	check(b, vfs.WriteFile(ctx, fsys, p, nil, vfs.NoOverwrite))
	afs := afero.NewMemMapFs()
	check(b, afero.WriteFile(afs, "/a/b/c", nil, 0o666))
	rounds(b, n, "stat", func(b *testing.B) {
		for range n {
			_, err := fsys.Stat(ctx, p)
			check(b, err)
		}
	}, func(b *testing.B) {
		for range n {
			_, err := afs.Stat("/a/b/c")
			check(b, err)
		}
	})
}

// check fails b on err. It does not call b.Helper, which costs more than a
// memfs operation.
func check(b *testing.B, err error) {
	if err != nil {
		b.Fatal(err)
	}
}

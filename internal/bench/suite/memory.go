package suite

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/internal/bench"
	"github.com/vfskit/vfskit/vfs"
)

// memSequential writes c.Big bytes in c.Chunk writes to memory:// and reads
// them back, against afero.MemMapFs used directly.
func memSequential(ctx context.Context, c *Config) ([]bench.Result, error) {
	fsys, afs := memfs.New(), afero.NewMemMapFs()
	p := vfs.MustPath("/big")
	buf, back := pattern(c.Chunk), make([]byte, c.Chunk)
	s, err := bench.Interleave(c.Rounds, func() error {
		if err := writeChunks(ctx, fsys, p, buf, c.Big); err != nil {
			return err
		}
		in, err := fsys.Open(ctx, p)
		if err != nil {
			return err
		}
		if err := readClose(in, back, c.Big); err != nil {
			return err
		}
		return fsys.Delete(ctx, p, false)
	}, func() error {
		f, err := afs.OpenFile("/big", os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return err
		}
		if err := writeClose(f, buf, c.Big, false); err != nil {
			return err
		}
		if f, err = afs.Open("/big"); err != nil {
			return err
		}
		if err := readClose(f, back, c.Big); err != nil {
			return err
		}
		return afs.Remove("/big")
	})
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("memory:// write+read, %d MiB in %d KiB pieces", c.Big/mib, c.Chunk/kib)
	return []bench.Result{speed(name, s, float64(2*c.Big)/mib, "MiB/s", 1.0)}, nil
}

// memSmallFiles creates n files of 1 KiB (create, write, close) then stats
// each, for every n of c.MemFiles, through memory://<name>/d/fN on an emptied
// file system and through afero.MemMapFs directly on a fresh one. A last row
// compares the cost per file at the largest n with that at the smallest.
func memSmallFiles(ctx context.Context, c *Config) ([]bench.Result, error) {
	const name = "vfsbench"
	fsys, err := memfs.Shared(name)
	if err != nil {
		return nil, err
	}
	defer memfs.Reset(name)
	data := pattern(kib)
	var results []bench.Result
	var perFile, perFileAfero []float64
	for _, n := range c.MemFiles {
		names := make([]string, n)
		paths := make([]vfs.Path, n)
		for i := range n {
			names[i] = "/d/f" + strconv.Itoa(i)
			paths[i] = vfs.MustPath("memory://" + name + names[i])
		}
		// A round of 1,000 files takes about a millisecond a side, where one
		// preemption moves the ratio by tens of percent: smaller counts run
		// more rounds, up to the same number of files as 10,000 (at most 10
		// times the rounds).
		rounds := c.Rounds * min(10, max(1, 10_000/n))
		s, err := bench.Interleave(rounds, func() error {
			defer memfs.Reset(name)
			for _, p := range paths {
				out, err := fsys.Create(ctx, p, vfs.NoOverwrite)
				if err != nil {
					return err
				}
				if _, err := out.Write(data); err != nil {
					return err
				}
				if err := out.Close(); err != nil {
					return err
				}
			}
			for _, p := range paths {
				if st, err := fsys.Stat(ctx, p); err != nil || st.Size != int64(len(data)) {
					return fmt.Errorf("stat %s: %v, %v", p, st, err)
				}
			}
			return nil
		}, func() error {
			afs := afero.NewMemMapFs()
			if err := afs.MkdirAll("/d", 0o777); err != nil {
				return err
			}
			for _, name := range names {
				f, err := afs.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
				if err != nil {
					return err
				}
				if err := writeClose(f, data, len(data), false); err != nil {
					return err
				}
			}
			for _, name := range names {
				if fi, err := afs.Stat(name); err != nil || fi.Size() != int64(len(data)) {
					return fmt.Errorf("stat %s: %v", name, err)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		r := speed(fmt.Sprintf("memory:// %d files of 1 KiB, create+close then stat", n), s, float64(n), "µs/file", 1.0)
		if rounds != c.Rounds {
			r.Note = fmt.Sprintf("%d rounds", rounds)
		}
		results = append(results, r)
		perFile, perFileAfero = append(perFile, r.Ours), append(perFileAfero, r.Baseline)
	}
	if k := len(perFile) - 1; k > 0 {
		growth, aferoGrowth := perFile[k]/perFile[0], perFileAfero[k]/perFileAfero[0]
		results = append(results, bench.Result{
			Name: fmt.Sprintf("memory:// cost per file at %d files ÷ at %d", c.MemFiles[k], c.MemFiles[0]),
			Ours: growth, Baseline: aferoGrowth, Unit: "×", Rounds: c.Rounds,
			Target: "≤ 1.1 × afero.MemMapFs's growth", Met: growth <= 1.1*aferoGrowth,
			Note: fmt.Sprintf("baseline: afero.MemMapFs's growth in the same run (both grow from the garbage collector and caches); ours ÷ baseline %.2f", growth/aferoGrowth),
		})
	}
	return results, nil
}

// memUserFiles creates c.MemUserFiles files of 1 KiB in 100 directories the
// way a program calls memory://: each path built with vfs.MustPath of a
// fmt.Sprintf, then Create, Write, Close, and then a Stat of each (its path
// built again), against afero.MemMapFs called the way its users do: MkdirAll
// of the directory and Create, Write, Close, then Stat. Each side starts from
// an empty file system; the rounds alternate which side goes first, and the
// result is the median of 2×c.Rounds−1 rounds (9 for make bench).
func memUserFiles(ctx context.Context, c *Config) ([]bench.Result, error) {
	const name, dirs = "vfsbench-user", 100
	fsys, err := memfs.Shared(name)
	if err != nil {
		return nil, err
	}
	defer memfs.Reset(name)
	n := c.MemUserFiles
	data := pattern(kib)
	rounds := 2*c.Rounds - 1
	s, err := bench.Interleave(rounds, func() error {
		defer memfs.Reset(name)
		for i := range n {
			out, err := fsys.Create(ctx, vfs.MustPath(fmt.Sprintf("memory://%s/d%d/f%d", name, i%dirs, i)), vfs.NoOverwrite)
			if err != nil {
				return err
			}
			if _, err := out.Write(data); err != nil {
				return err
			}
			if err := out.Close(); err != nil {
				return err
			}
		}
		for i := range n {
			p := vfs.MustPath(fmt.Sprintf("memory://%s/d%d/f%d", name, i%dirs, i))
			if st, err := fsys.Stat(ctx, p); err != nil || st.Size != int64(len(data)) {
				return fmt.Errorf("stat %s: %v, %v", p, st, err)
			}
		}
		return nil
	}, func() error {
		afs := afero.NewMemMapFs()
		for i := range n {
			if err := afs.MkdirAll(fmt.Sprintf("/d%d", i%dirs), 0o777); err != nil {
				return err
			}
			f, err := afs.Create(fmt.Sprintf("/d%d/f%d", i%dirs, i))
			if err != nil {
				return err
			}
			if err := writeClose(f, data, len(data), false); err != nil {
				return err
			}
		}
		for i := range n {
			name := fmt.Sprintf("/d%d/f%d", i%dirs, i)
			if fi, err := afs.Stat(name); err != nil || fi.Size() != int64(len(data)) {
				return fmt.Errorf("stat %s: %v", name, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r := speed(fmt.Sprintf("memory:// %d files of 1 KiB in %d directories, paths from fmt.Sprintf, create+close then stat", n, dirs),
		s, float64(n), "µs/file", 1.0)
	r.Note = "baseline: afero.MemMapFs with MkdirAll + Create per file"
	return []bench.Result{r}, nil
}

// cachedGet measures vfs.Get of a cached memory:// URI and Path.FileSystem
// with testing.Benchmark: wall and CPU time and allocations per call. The
// target is judged on the smaller of the two times: on a loaded machine the
// wall time counts other processes' turns on the CPU.
func cachedGet(ctx context.Context, c *Config) ([]bench.Result, error) {
	if _, err := vfs.Get(ctx, "memory://bench/"); err != nil {
		return nil, err
	}
	p := vfs.MustPath("memory://bench/a/b")
	var results []bench.Result
	for _, m := range []struct {
		name string
		f    func() error
	}{
		{`cached vfs.Get("memory://bench/")`, func() error { _, err := vfs.Get(ctx, "memory://bench/"); return err }},
		{"cached Path.FileSystem", func() error { _, err := p.FileSystem(ctx); return err }},
	} {
		ns, cpu, allocs, err := perCall(c.Rounds, m.f)
		if err != nil {
			return nil, err
		}
		results = append(results, bench.Result{
			Name: m.name, Ours: ns, Unit: "ns/op", Rounds: c.Rounds,
			Target: "≤ 100 ns (wall or CPU), 0 allocs", Met: min(ns, cpu) <= 100 && allocs == 0,
			Note: fmt.Sprintf("%.0f ns/op of CPU, %d allocs/op", cpu, allocs),
		})
	}
	return results, nil
}

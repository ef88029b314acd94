package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/internal/bench"
	"github.com/vfskit/vfskit/vfs"
)

// localSequential writes c.Big bytes in c.Chunk writes through file:// (temp
// file, fsync, rename, directory fsync) and reads them back, against a raw
// *os.File written with the same buffer and fsynced. Before each timed side,
// untimed, both sides' files are removed and the removal made durable
// (directory fsync), so that each side writes a new file from the same disk
// and page-cache state: with the previous file left in place, each side paid
// for freeing its last 256 MiB at a different step (the baseline's O_TRUNC,
// file://'s rename), and file://, which keeps the old version until it
// publishes the new one, had to find 256 MiB of other pages for its writes
// and stalled for 0.3–1.8 s in the rounds where it ran right after the
// baseline (bench/README.md). A round costs well under a second, and the
// time of one side varies by tens of percent from round to round with the
// disk (its fsync) and the other processes of a shared machine, so this
// measure runs three times c.Rounds rounds.
func localSequential(ctx context.Context, c *Config) ([]bench.Result, error) {
	dir, err := os.MkdirTemp(c.Dir, "vfsbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	fsys := local.New()
	buf, back := pattern(c.Chunk), make([]byte, c.Chunk)
	oursName, raw, raw2 := filepath.Join(dir, "ours"), filepath.Join(dir, "raw"), filepath.Join(dir, "raw2")
	ours := vfs.MustPath(oursName)
	before := func() error { return removeSynced(dir, oursName, raw, raw2) }
	r, control := bench.Ratios{Before: before}, bench.Ratios{Before: before}
	rawSide := func(name string) func() error {
		return func() error {
			f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
			if err != nil {
				return err
			}
			if err := writeClose(f, buf, c.Big, true); err != nil {
				return err
			}
			if f, err = os.Open(name); err != nil {
				return err
			}
			return readClose(f, back, c.Big)
		}
	}
	for i := range 3 * c.Rounds {
		err := r.Round(i, func() error {
			if err := writeChunks(ctx, fsys, ours, buf, c.Big); err != nil {
				return err
			}
			in, err := fsys.Open(ctx, ours)
			if err != nil {
				return err
			}
			return readClose(in, back, c.Big)
		}, rawSide(raw))
		if err == nil {
			// The baseline against itself: what the measure resolves now.
			err = control.Round(i, rawSide(raw2), rawSide(raw))
		}
		if err != nil {
			return nil, err
		}
	}
	name := fmt.Sprintf("local sequential write+read, %d MiB in %d KiB pieces", c.Big/mib, c.Chunk/kib)
	res := speed(name, r.Summary(), float64(2*c.Big)/mib, "MiB/s", 0.95)
	res.Note = fmt.Sprintf("%d rounds, each side from the same disk state; control (baseline ÷ baseline) %.2f",
		res.Rounds, control.Summary().Ratio)
	return []bench.Result{res}, nil
}

// removeSynced removes the files names (missing ones are fine) and fsyncs
// their directory dir, so that the next timed run finds them gone on disk.
func removeSynced(dir string, names ...string) error {
	for _, n := range names {
		if err := os.Remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return syncDir(dir)
}

// writeChunks creates p (Overwrite) and writes size bytes to it, buf at a time.
func writeChunks(ctx context.Context, fsys vfs.FileSystem, p vfs.Path, buf []byte, size int) error {
	out, err := fsys.Create(ctx, p, vfs.Overwrite)
	if err != nil {
		return err
	}
	for range size / len(buf) {
		if _, err := out.Write(buf); err != nil {
			if a, ok := out.(vfs.Aborter); ok {
				_ = a.Abort()
			}
			return err
		}
	}
	return out.Close()
}

// writeClose writes size bytes to f, buf at a time, fsyncs it when sync is
// set, and closes it (also after an error).
func writeClose(f interface {
	io.WriteCloser
	Sync() error
}, buf []byte, size int, sync bool) error {
	var err error
	for n := 0; n < size && err == nil; n += len(buf) {
		_, err = f.Write(buf[:min(len(buf), size-n)])
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readClose reads r to its end, buf at a time, closes it and checks it held
// want bytes.
func readClose(r io.ReadCloser, buf []byte, want int) error {
	got := 0
	var err error
	for err == nil {
		var n int
		n, err = io.ReadFull(r, buf)
		got += n
	}
	if cerr := r.Close(); err == io.EOF || err == io.ErrUnexpectedEOF {
		err = cerr
	}
	if err == nil && got != want {
		err = fmt.Errorf("read %d bytes, want %d", got, want)
	}
	return err
}

// localSmallFiles creates c.Files files of 4 KiB in a fresh directory per
// round through file://, against raw os calls publishing the same way: a
// temporary file written, fsynced, closed, renamed into place, and the
// directory fsynced.
func localSmallFiles(ctx context.Context, c *Config) ([]bench.Result, error) {
	dir, err := os.MkdirTemp(c.Dir, "vfsbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	fsys := local.New()
	data := pattern(4 * kib)
	ro, rr := 0, 0 // the rounds each side has started
	s, err := bench.Interleave(c.Rounds, func() error {
		ro++
		d := vfs.MustPath(filepath.Join(dir, "ours"+strconv.Itoa(ro)))
		for i := range c.Files {
			if err := vfs.WriteFile(ctx, fsys, d.Join("f"+strconv.Itoa(i)), data, vfs.NoOverwrite); err != nil {
				return err
			}
		}
		return nil
	}, func() error {
		rr++
		d := filepath.Join(dir, "raw"+strconv.Itoa(rr))
		if err := os.Mkdir(d, 0o777); err != nil {
			return err
		}
		for i := range c.Files {
			if err := publishRaw(d, "f"+strconv.Itoa(i), data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("local %d files of 4 KiB, create+write+close", c.Files)
	return []bench.Result{speed(name, s, float64(c.Files), "µs/file", 0.85)}, nil
}

// publishRaw writes data to dir/name as file:// does, with plain os calls.
func publishRaw(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return err
	}
	if err = writeClose(f, data, len(data), true); err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return syncDir(dir)
}

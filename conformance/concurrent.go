package conformance

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// writers is the number of goroutines in the concurrent cases.
const writers = 8

// concurrentCases check that a FileSystem is safe for concurrent use, and that
// NoOverwrite and Rename have exactly one winner between racing callers, on every
// kind of file system.
var concurrentCases = []testCase{
	{name: "DistinctWriters", run: func(t *testing.T, e *env) {
		// Every writer keeps several streams open at once and interleaves its writes
		// with everyone else's; each file must hold exactly its own bytes.
		const filesPerWriter, chunks, chunk = 4, 16, 4099
		errs := make([]error, writers)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() { errs[w] = writeInterleaved(e, w, filesPerWriter, chunks, chunk) })
		}
		wg.Wait()
		for w, err := range errs {
			require.NoError(t, err, "writer %d", w)
		}
		var want []string
		for w := range writers {
			for f := range filesPerWriter {
				p := e.path(fmt.Sprintf("w%d-f%d", w, f))
				want = append(want, p.Name())
				e.requireContent(t, p, pattern(uint64(100+w*filesPerWriter+f), 0, chunks*chunk))
			}
		}
		requireSameNames(t, want, e.names(t, e.dir), "List(%s) after concurrent writes", e.dir)
	}},
	{name: "NoOverwriteRace", run: func(t *testing.T, e *env) {
		// All writers open the same path and write before any of them closes: exactly
		// one Close may succeed, the others fail with fs.ErrExist, and the file holds
		// the winner's bytes, whole.
		p := e.path("contested")
		errs := make([]error, writers)
		var wg, written sync.WaitGroup
		written.Add(writers)
		for w := range writers {
			wg.Go(func() {
				out, err := e.fsys.Create(e.ctx, p, vfs.NoOverwrite)
				if err == nil {
					_, err = out.Write(pattern(uint64(200+w), 0, 10_000))
				}
				written.Done()
				written.Wait()
				if out != nil {
					if cerr := out.Close(); err == nil {
						err = cerr
					}
				}
				errs[w] = err
			})
		}
		wg.Wait()
		winner := -1
		for w, err := range errs {
			if err == nil {
				require.Equal(t, -1, winner, "writers %d and %d both published %s with NoOverwrite", winner, w, p)
				winner = w
				continue
			}
			requirePathError(t, err, fs.ErrExist, p, "writer %d losing the NoOverwrite race", w)
		}
		require.NotEqual(t, -1, winner, "no writer published %s", p)
		e.requireContent(t, p, pattern(uint64(200+winner), 0, 10_000))
		require.Equal(t, []string{"contested"}, e.names(t, e.dir), "List(%s) after the race: leftovers", e.dir)
	}},
	{name: "RenameRace", run: func(t *testing.T, e *env) {
		// Writers rename their own files onto one destination at once: exactly one
		// succeeds, the others fail with fs.ErrExist and keep their sources.
		dst := e.path("dst")
		src := func(w int) vfs.Path { return e.path(fmt.Sprintf("src-%d", w)) }
		for w := range writers {
			e.write(t, src(w), pattern(uint64(300+w), 0, 1000))
		}
		errs := make([]error, writers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				<-start
				errs[w] = e.fsys.Rename(e.ctx, src(w), dst)
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for w, err := range errs {
			if err == nil {
				require.Equal(t, -1, winner, "Rename of %s and %s onto %s both succeeded", src(winner), src(w), dst)
				winner = w
				e.requireMissing(t, src(w))
				continue
			}
			requireRenameError(t, err, fs.ErrExist, src(w), dst)
			e.requireContent(t, src(w), pattern(uint64(300+w), 0, 1000))
		}
		require.NotEqual(t, -1, winner, "no Rename onto %s succeeded", dst)
		e.requireContent(t, dst, pattern(uint64(300+winner), 0, 1000))
	}},
}

// writeInterleaved writes writer w's files, all streams open at once, a chunk to
// each in turn, yielding between chunks. It uses no assertions: it runs on its own
// goroutine.
func writeInterleaved(e *env, w, files, chunks, chunk int) (err error) {
	outs := make([]vfs.OutputStream, files)
	defer func() {
		for _, out := range outs {
			if out != nil && err != nil {
				discard(out)
			}
		}
	}()
	for f := range files {
		p := e.path(fmt.Sprintf("w%d-f%d", w, f))
		if outs[f], err = e.fsys.Create(e.ctx, p, vfs.NoOverwrite); err != nil {
			return err
		}
	}
	for c := range chunks {
		for f, out := range outs {
			data := pattern(uint64(100+w*files+f), int64(c*chunk), chunk)
			if _, err := out.Write(data); err != nil {
				return err
			}
			runtime.Gosched()
		}
	}
	for f, out := range outs {
		outs[f] = nil
		if err := out.Close(); err != nil {
			return errors.Join(fmt.Errorf("closing file %d", f), err)
		}
	}
	return nil
}

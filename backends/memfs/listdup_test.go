package memfs_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// TestListUniqueUnderOverwrites lists a directory while other goroutines keep
// overwriting its files: every listing must name each file exactly once, sorted,
// and never show a temporary file (afero's MemMapFs renamed a temporary file
// under a listing's feet and listed the new name twice).
func TestListUniqueUnderOverwrites(t *testing.T) {
	const files, writers, listers, rounds = 64, 4, 2, 300
	ctx := context.Background()
	fsys := memfs.New()
	dir := vfs.MustPath(fsys.URI().String()).Join("d")
	for i := range files {
		require.NoError(t, vfs.WriteFile(ctx, fsys, dir.Join(fmt.Sprintf("f%03d", i)), []byte("0"), vfs.NoOverwrite))
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	werrs := make([]error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load() && i < 1_000_000; i++ {
				p := dir.Join(fmt.Sprintf("f%03d", (i*writers+w)%files))
				if err := vfs.WriteFile(ctx, fsys, p, []byte("x"), vfs.Overwrite); err != nil {
					werrs[w] = err
					return
				}
			}
		}()
	}
	var listed, bad atomic.Int64
	var first atomic.Value
	var lg sync.WaitGroup
	for range listers {
		lg.Add(1)
		go func() {
			defer lg.Done()
			for range rounds {
				entries, err := fsys.List(ctx, dir)
				if err != nil {
					first.CompareAndSwap(nil, err.Error())
					bad.Add(1)
					continue
				}
				listed.Add(1)
				ok := len(entries) == files
				for i, e := range entries {
					if i > 0 && entries[i-1].Name() >= e.Name() {
						ok = false
					}
				}
				if !ok {
					names := make([]string, len(entries))
					for i, e := range entries {
						names[i] = e.Name()
					}
					first.CompareAndSwap(nil, fmt.Sprint(names))
					bad.Add(1)
				}
			}
		}()
	}
	lg.Wait()
	stop.Store(true)
	wg.Wait()
	for _, err := range werrs {
		require.NoError(t, err)
	}
	assert.Zero(t, bad.Load(), "%d of %d listings were not %d unique sorted names; first: %v", bad.Load(), listed.Load()+bad.Load(), files, first.Load())
}

package conformance

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// listCases check List: complete, sorted by name, one level deep, with correct
// statuses, and a file listing itself.
var listCases = []testCase{
	{name: "Sorted", run: func(t *testing.T, e *env) {
		// Written in an order that is neither sorted nor reverse sorted.
		files := []string{"b", "a", "c", "B", "a0", "a-", "_", "A", "aa", "a.txt", "10", "9", "~"}
		for i, name := range files {
			e.write(t, e.path(name), pattern(uint64(i), 0, i))
		}
		e.write(t, e.path("ab", "nested"), []byte("x"))
		want := append(append([]string(nil), files...), "ab")
		got := e.names(t, e.dir)
		requireSameNames(t, want, got, "List(%s): the names of the entries", e.dir)
		requireSorted(t, got, e.dir)
	}},
	{name: "Statuses", run: func(t *testing.T, e *env) {
		e.write(t, e.path("file"), pattern(1, 0, 321))
		e.write(t, e.path("empty"), nil)
		e.write(t, e.path("dir", "inner", "deep"), []byte("x"))
		list, err := e.fsys.List(e.ctx, e.dir)
		require.NoError(t, err, "List(%s)", e.dir)
		require.Len(t, list, 3, "List(%s) must be one level deep", e.dir)
		sizes := map[string]int64{"file": 321, "empty": 0, "dir": 0}
		for _, st := range list {
			size, ok := sizes[st.Name()]
			require.True(t, ok, "List(%s) returned an unexpected entry %s", e.dir, st.Path)
			requireStatus(t, e, st, e.path(st.Name()), size, st.Name() == "dir")
		}
	}},
	{name: "Many", run: func(t *testing.T, e *env) {
		n := e.h.ListSize
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("entry-%05d", i)
		}
		// Create in a shuffled order, so that a sorted listing is not an accident of
		// creation order, with a few writers at once to keep slow servers bearable.
		order := rand.New(rand.NewPCG(1, 2)).Perm(n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		work := make(chan int)
		for range 8 {
			wg.Go(func() {
				for i := range work {
					errs[i] = vfs.WriteFile(e.ctx, e.fsys, e.path(names[i]), []byte(names[i]), vfs.NoOverwrite)
				}
			})
		}
		for _, i := range order {
			work <- i
		}
		close(work)
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "writing %s", names[i])
		}
		got := e.names(t, e.dir)
		require.Len(t, got, n, "List(%s) of %d files", e.dir, n)
		requireSorted(t, got, e.dir)
		require.Equal(t, names, got, "List(%s) of %d files", e.dir, n)
	}},
	{name: "File", run: func(t *testing.T, e *env) {
		p := e.path("file")
		e.write(t, p, pattern(1, 0, 42))
		list, err := e.fsys.List(e.ctx, p)
		require.NoError(t, err, "List(%s) of a file", p)
		require.Len(t, list, 1, "List(%s) of a file must return the file itself", p)
		requireStatus(t, e, list[0], p, 42, false)
	}},
	{name: "Missing", run: func(t *testing.T, e *env) {
		p := e.path("missing")
		_, err := e.fsys.List(e.ctx, p)
		requirePathError(t, err, fs.ErrNotExist, p, "List(%s)", p)
	}},
	{name: "EmptyDirectory", fileSystemOnly: noEmptyDirs, run: func(t *testing.T, e *env) {
		d := e.path("dir")
		require.NoError(t, e.fsys.Mkdirs(e.ctx, d), "Mkdirs(%s)", d)
		list, err := e.fsys.List(e.ctx, d)
		require.NoError(t, err, "List(%s) of an empty directory", d)
		require.Empty(t, list, "List(%s) of an empty directory", d)
		require.Equal(t, []string{"dir"}, e.names(t, e.dir), "List(%s) shows the empty directory", e.dir)
	}},
	{name: "AfterDelete", run: func(t *testing.T, e *env) {
		for _, name := range []string{"a", "b", "c"} {
			e.write(t, e.path(name), []byte(name))
		}
		require.NoError(t, e.fsys.Delete(e.ctx, e.path("b"), false), "Delete(%s)", e.path("b"))
		require.Equal(t, []string{"a", "c"}, e.names(t, e.dir), "List(%s) after deleting b", e.dir)
	}},
}

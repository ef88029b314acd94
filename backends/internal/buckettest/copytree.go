package buckettest

import (
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/vfs"
)

// FailedTreeCopyUndone checks that a tree copy (and a move) that fails part
// way leaves nothing at its destination, on fsys, whose requests go through
// the fault proxy p; direct is another client of the same bucket. The proxy
// holds back the store's answers to the writes of the destination (the store
// has written each object, the client has not heard it yet), and another
// client deletes a source file while the copy runs: the copy fails with
// fs.ErrNotExist, and every object it started, finished or not when the
// failure came, is removed by its undo. A move leaves its source as it was,
// but for the deleted file.
func FailedTreeCopyUndone(t *testing.T, fsys, direct vfs.FileSystem, dir vfs.Path, p *faultproxy.Proxy) {
	t.Helper()
	ctx := t.Context()
	for _, move := range []bool{false, true} {
		name := map[bool]string{false: "copy", true: "move"}[move]
		src, dst := dir.Join(name, "src"), dir.Join(name, "dst")
		var names []string
		for i := range 40 {
			n := fmt.Sprintf("f-%03d", i)
			names = append(names, n)
			require.NoError(t, vfs.WriteFile(ctx, direct, src.Join(n), []byte(strings.Repeat(n, 100)), vfs.NoOverwrite))
		}
		gone := src.Join("f-020")
		p.Set(faultproxy.Faults{Delay: 300 * time.Millisecond, Match: func(r *http.Request) bool {
			return r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodDelete &&
				strings.Contains(r.URL.String(), "dst")
		}})
		var once sync.Once
		opts := vfs.CopyOptions{Concurrency: 8, Progress: func(pr vfs.CopyProgress) {
			if pr.Files > 0 {
				once.Do(func() { require.NoError(t, direct.Delete(ctx, gone, false)) })
			}
		}}
		var err error
		if move {
			_, err = vfs.MoveTree(ctx, fsys, dst, fsys, src, opts)
		} else {
			_, err = vfs.CopyTree(ctx, fsys, dst, fsys, src, opts)
		}
		p.Set(faultproxy.Faults{})
		require.ErrorIs(t, err, fs.ErrNotExist, "%s of %s while another client deleted %s", name, src, gone)
		var left []string
		werr := vfs.Walk(ctx, direct, dst, func(st vfs.FileStatus, err error) error {
			if err == nil && !st.IsDir {
				left = append(left, st.Path.String())
			}
			return err
		})
		if werr != nil {
			require.ErrorIs(t, werr, fs.ErrNotExist, "Walk(%s)", dst)
		}
		require.Empty(t, left, "objects at the destination after the failed %s was undone", name)
		entries, err := direct.List(ctx, src)
		require.NoError(t, err)
		var got []string
		for _, e := range entries {
			got = append(got, e.Path.Name())
		}
		require.Equal(t, len(names)-1, len(got), "files at the source after the failed %s: all but the deleted one", name)
	}
}

// Package renametest checks, on any file system, that Rename loses no version
// written to its source while it runs.
package renametest

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// writes is how many versions WhileWritten's writer writes per round.
const writes = 12

// WhileWritten renames the file dir/src to dir/dst on fsys, rounds times,
// while another goroutine rewrites the source (a bounded number of whole
// versions). Whatever Rename answers, nil or an error wrapping vfs.ErrChanged
// (an object store's rename, a copy and a delete, that met a new version),
// the newest version written is at the source or at the destination, byte
// for byte: a rename never deletes a version it did not move.
func WhileWritten(t *testing.T, fsys vfs.FileSystem, dir vfs.Path, rounds int) {
	t.Helper()
	ctx := t.Context()
	for r := range rounds {
		src, dst := dir.Join(fmt.Sprint("src", r)), dir.Join(fmt.Sprint("dst", r))
		version := func(i int) []byte {
			return fmt.Appendf(nil, "version %d of the source, %s", i, strings.Repeat(string(rune('a'+i%26)), 100+i))
		}
		require.NoError(t, vfs.WriteFile(ctx, fsys, src, version(0), vfs.NoOverwrite))
		last := make(chan int, 1)
		go func() {
			n := 0
			for i := 1; i <= writes; i++ {
				if vfs.WriteFile(ctx, fsys, src, version(i), vfs.Overwrite) == nil {
					n = i
				}
			}
			last <- n
		}()
		err := fsys.Rename(ctx, src, dst)
		n := <-last
		if err != nil {
			require.ErrorIs(t, err, vfs.ErrChanged, "Rename(%s, %s) while the source was written", src, dst)
		}
		found := false
		for _, p := range []vfs.Path{src, dst} {
			data, rerr := vfs.ReadFile(ctx, fsys, p)
			if errors.Is(rerr, fs.ErrNotExist) {
				continue
			}
			require.NoError(t, rerr, "ReadFile(%s)", p)
			found = found || string(data) == string(version(n))
		}
		require.True(t, found, "round %d: the newest version written (%d) is neither at %s nor at %s: the rename (error %v) lost it", r, n, src, dst, err)
	}
}

package vfs_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// TestCopyTreeKeepOnCancel cancels a CopyTree midway: with KeepOnCancel the
// files copied whole stay and are returned with the error, and a second copy
// with OverwriteSkip finishes it, keeping them; without it the copy is undone.
func TestCopyTreeKeepOnCancel(t *testing.T) {
	for _, keep := range []bool{true, false} {
		t.Run(fmt.Sprint("keep=", keep), func(t *testing.T) {
			fsys, root := memfs.NewTest(t)
			files := map[string]string{}
			for i := range 40 {
				files[fmt.Sprintf("d%d/f%02d", i%3, i)] = fmt.Sprint("content ", i)
			}
			writeFiles(t, fsys, root.Join("src"), files)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := vfs.CopyOptions{Concurrency: 2, Overwrite: vfs.OverwriteSkip, KeepOnCancel: keep, Progress: func(p vfs.CopyProgress) {
				if p.Files == 10 {
					cancel()
				}
			}}
			res, err := vfs.CopyTree(ctx, fsys, root.Join("dst"), fsys, root.Join("src"), opts)
			require.True(t, errors.Is(err, context.Canceled), "%v", err)
			got := readTree(t, fsys, root.Join("dst"))
			if !keep {
				assert.Nil(t, res)
				assert.Empty(t, got, "undone")
				return
			}
			require.NotNil(t, res)
			assert.Len(t, got, len(res.Files), "exactly the files reported are there")
			require.GreaterOrEqual(t, len(res.Files), 10)
			require.Less(t, len(res.Files), len(files))
			for rel, data := range got {
				assert.Equal(t, files[rel], data, rel)
			}
			res2, err := vfs.CopyTree(context.Background(), fsys, root.Join("dst"), fsys, root.Join("src"), vfs.CopyOptions{Overwrite: vfs.OverwriteSkip})
			require.NoError(t, err)
			assert.Len(t, res2.Skipped, len(got), "what the first copy wrote is kept")
			assert.Equal(t, files, readTree(t, fsys, root.Join("dst")))
		})
	}
}

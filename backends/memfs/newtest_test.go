package memfs_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// TestNewTestIsolated runs parallel tests that write the same relative name in
// their own NewTest file system: each sees only its own file, reaches it again
// through vfs.Get and a fresh registry, and the contents are gone after the
// test.
func TestNewTestIsolated(t *testing.T) {
	ctx := context.Background()
	roots := make([]vfs.Path, 4)
	t.Run("group", func(t *testing.T) {
		for i := range roots {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				fsys, root := memfs.NewTest(t)
				roots[i] = root
				assert.Equal(t, "memory", root.Scheme())
				assert.Equal(t, "/", root.Path())
				entries, err := fsys.List(ctx, root)
				require.NoError(t, err)
				assert.Empty(t, entries, "starts empty")
				p := root.Join("same-name")
				require.NoError(t, vfs.WriteFile(ctx, fsys, p, []byte(fmt.Sprint("test ", i)), vfs.NoOverwrite))

				viaGet, err := vfs.Get(ctx, p.String())
				require.NoError(t, err)
				got, err := vfs.ReadFile(ctx, viaGet, p)
				require.NoError(t, err)
				assert.Equal(t, fmt.Sprint("test ", i), string(got))

				reg := vfs.NewRegistry()
				require.NoError(t, reg.Register(memfs.Scheme, memfs.Factory))
				viaReg, err := reg.Get(ctx, p.String())
				require.NoError(t, err)
				got, err = vfs.ReadFile(ctx, viaReg, p)
				require.NoError(t, err)
				assert.Equal(t, fmt.Sprint("test ", i), string(got))
			})
		}
	})
	seen := map[vfs.Path]bool{}
	for _, root := range roots {
		require.False(t, root.IsZero())
		assert.False(t, seen[root], "every test has its own authority: %s", root)
		seen[root] = true
		fsys, err := memfs.Shared(root.Authority())
		require.NoError(t, err)
		entries, err := fsys.List(ctx, root)
		require.NoError(t, err)
		assert.Empty(t, entries, "cleaned up after the test: %s", root)
	}
}

package layer_test

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// swapTree makes base/tree (a, sub/x1..x5) and base/outside (x1..x5, other
// bytes, the same names), and returns base as a file:// path.
func swapTree(t *testing.T) (base string) {
	base = t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(base, "tree", "sub"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(base, "outside"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, "tree", "a"), []byte("alpha"), 0o644))
	for i := 1; i <= 5; i++ {
		require.NoError(t, os.WriteFile(filepath.Join(base, "tree", "sub", fmt.Sprintf("x%d", i)), []byte("inside"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(base, "outside", fmt.Sprintf("x%d", i)), []byte("OUTSIDE"), 0o644))
	}
	return base
}

// diskTree returns every file and link below root with its bytes (a link
// as its target).
func diskTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			require.NoError(t, err)
			out[rel] = "-> " + target
		case !fi.IsDir():
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			out[rel] = string(b)
		}
		return nil
	}))
	return out
}

// swapOutcome is what a CopyTree or MoveTree of base/tree did when tree/sub
// was swapped for a link to base/outside after the listing (once a is
// copied): its error, whether it read a byte of outside, and the files on
// disk afterwards.
type swapOutcome struct {
	err     error
	leaked  bool
	onDisk  map[string]string
	swapped bool
}

func runSwap(t *testing.T, move, late bool, wrap func(inner vfs.FileSystem, root vfs.Path) (vfs.FileSystem, func(vfs.Path) vfs.Path)) swapOutcome {
	t.Helper()
	base := swapTree(t)
	root := vfs.MustPath("file://" + filepath.ToSlash(base))
	src, inView := wrap(local.New(), root)
	dst, droot := memfs.NewTest(t)
	var o swapOutcome
	opts := vfs.CopyOptions{
		Concurrency: 1,
		Progress: func(p vfs.CopyProgress) {
			at := p.Files == 1 // a is copied, sub/x1 is next
			if late {
				at = p.TotalFiles > 0 && p.Files == p.TotalFiles // all copied, nothing deleted yet
			}
			if at && !o.swapped {
				o.swapped = true
				require.NoError(t, os.Rename(filepath.Join(base, "tree", "sub"), filepath.Join(base, "sub.aside")))
				require.NoError(t, os.Symlink(filepath.Join(base, "outside"), filepath.Join(base, "tree", "sub")))
			}
		},
	}
	tree := inView(root.Join("tree"))
	if move {
		_, o.err = vfs.MoveTree(t.Context(), dst, droot.Join("moved"), src, tree, opts)
	} else {
		_, o.err = vfs.CopyTree(t.Context(), dst, droot.Join("copy"), src, tree, opts)
	}
	require.NoError(t, vfs.Walk(t.Context(), dst, droot, func(st vfs.FileStatus, err error) error {
		require.NoError(t, err)
		if !st.IsDir {
			data, err := vfs.ReadFile(t.Context(), dst, st.Path)
			require.NoError(t, err)
			o.leaked = o.leaked || string(data) == "OUTSIDE"
		}
		return nil
	}))
	o.onDisk = diskTree(t, base)
	// The link's target is the one thing that differs from run to run.
	o.onDisk[filepath.Join("tree", "sub")] = "-> outside"
	return o
}

// TestLayersRefuseASwappedLinkAsBare: under every layer, vfs.CopyTree and
// vfs.MoveTree of a file:// tree whose directory is swapped for a link to
// another directory after the listing end exactly as they do on bare
// file://. Swapped while the copy runs, the copy fails with vfs.ErrChanged
// and reads nothing the link leads to; swapped once a move copied every
// file, the move leaves the link in place. Either way nothing is deleted but
// the files a move copied (the directory moved aside, the link and the five
// files it leads to are all there, byte for byte). A regression test: a
// layer that did not forward vfs.OpenBeneathFS read through the link, and
// MoveTree then deleted the five files outside.
func TestLayersRefuseASwappedLinkAsBare(t *testing.T) {
	for _, c := range []struct {
		name       string
		move, late bool
	}{{"CopyTree", false, false}, {"MoveTree", true, false}, {"MoveTreeSwappedAfterTheCopy", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			bare := runSwap(t, c.move, c.late, func(inner vfs.FileSystem, _ vfs.Path) (vfs.FileSystem, func(vfs.Path) vfs.Path) {
				return inner, func(p vfs.Path) vfs.Path { return p }
			})
			require.True(t, bare.swapped)
			require.ErrorIs(t, bare.err, vfs.ErrChanged, "bare file:// refuses the link or leaves it")
			assert.False(t, bare.leaked && runtime.GOOS == "linux", "bare file:// reads nothing through the link")
			for lname, wrap := range layers {
				t.Run(lname, func(t *testing.T) {
					got := runSwap(t, c.move, c.late, func(inner vfs.FileSystem, root vfs.Path) (vfs.FileSystem, func(vfs.Path) vfs.Path) {
						return wrap(t, inner, root), func(p vfs.Path) vfs.Path { return view(t, lname, root, p) }
					})
					require.True(t, got.swapped)
					assert.Equal(t, bare.err != nil, got.err != nil, "error %v, bare %v", got.err, bare.err)
					assert.Equal(t, errors.Is(bare.err, vfs.ErrChanged), errors.Is(got.err, vfs.ErrChanged), "error %v, bare %v", got.err, bare.err)
					assert.Equal(t, bare.leaked, got.leaked, "bytes read through the link")
					want := maps.Clone(bare.onDisk)
					if lname == "readonly" && c.late {
						want[filepath.Join("tree", "a")] = "alpha" // a read-only source keeps the file moved, too
					}
					assert.Equal(t, want, got.onDisk, "the files on disk afterwards")
				})
			}
		})
	}
}

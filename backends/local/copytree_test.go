package local_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// TestCopyTreeDoesNotFollowADirectorySwappedForALink: after the tree was
// listed, a directory in it is replaced by a link to a directory outside;
// the copy fails naming the link and reads nothing outside the tree.
func TestCopyTreeDoesNotFollowADirectorySwappedForALink(t *testing.T) {
	base, tree, outside := treeBesideOutside(t, "SECRET")

	dst, droot := memfs.NewTest(t)
	swapped := false
	_, err := vfs.CopyTree(t.Context(), dst, droot.Join("copy"), local.New(), vfs.MustPath(tree), vfs.CopyOptions{
		Concurrency: 1,
		Progress: func(p vfs.CopyProgress) {
			if p.Files == 1 && !swapped { // a is copied, sub/x is next
				swapped = true
				require.NoError(t, os.Rename(filepath.Join(tree, "sub"), filepath.Join(base, "sub.orig")))
				require.NoError(t, os.Symlink(outside, filepath.Join(tree, "sub")))
			}
		},
	})
	require.True(t, swapped)
	require.ErrorIs(t, err, vfs.ErrChanged)
	require.Contains(t, err.Error(), "symbolic link")
	require.Contains(t, err.Error(), "sub/x")
	// Nothing was read through the link, and the copy was undone.
	var found []string
	require.NoError(t, vfs.Walk(t.Context(), dst, droot, func(st vfs.FileStatus, err error) error {
		require.NoError(t, err)
		if !st.IsDir {
			data, err := vfs.ReadFile(t.Context(), dst, st.Path)
			require.NoError(t, err)
			require.False(t, strings.Contains(string(data), "SECRET"))
			found = append(found, st.Path.String())
		}
		return nil
	}))
	require.Empty(t, found, "the copy is undone")
}

// TestMoveTreeKeepsALinkItReportsAsLeft: once every file was copied, a
// directory of the tree is replaced by a link to a directory outside; the
// move reports the link as left at the source, and it is still there
// afterwards (the removal of the directories the move emptied does not take
// it), as is everything outside the tree and the directory moved aside.
func TestMoveTreeKeepsALinkItReportsAsLeft(t *testing.T) {
	_, tree, outside := treeBesideOutside(t, "OUTSIDE")

	dst, droot := memfs.NewTest(t)
	swapped := false
	res, err := vfs.MoveTree(t.Context(), dst, droot.Join("moved"), local.New(), vfs.MustPath(tree), vfs.CopyOptions{
		Concurrency: 1,
		Progress: func(p vfs.CopyProgress) {
			if p.TotalFiles > 0 && p.Files == p.TotalFiles && !swapped { // all copied, nothing deleted yet
				swapped = true
				require.NoError(t, os.Rename(filepath.Join(tree, "sub"), filepath.Join(tree, "sub.aside")))
				require.NoError(t, os.Symlink(outside, filepath.Join(tree, "sub")))
			}
		},
	})
	require.True(t, swapped)
	require.ErrorIs(t, err, vfs.ErrChanged)
	link := vfs.MustPath(tree).Join("sub")
	var reported bool
	for _, l := range res.Left {
		reported = reported || l.Path == link.MakeQualified(local.New())
	}
	require.True(t, reported, "the link is reported as left: %v", res.Left)
	target, lerr := os.Readlink(filepath.Join(tree, "sub"))
	require.NoError(t, lerr, "the link it reports as left is there")
	require.Equal(t, outside, target)
	got, rerr := os.ReadFile(filepath.Join(outside, "x"))
	require.NoError(t, rerr)
	require.Equal(t, "OUTSIDE", string(got))
	got, rerr = os.ReadFile(filepath.Join(tree, "sub.aside", "x"))
	require.NoError(t, rerr)
	require.Equal(t, "inside", string(got))
}

// treeBesideOutside makes base/tree (a, sub/x) and base/outside (x holding
// outsideX) in a new temporary directory.
func treeBesideOutside(t *testing.T, outsideX string) (base, tree, outside string) {
	base = t.TempDir()
	tree, outside = filepath.Join(base, "tree"), filepath.Join(base, "outside")
	require.NoError(t, os.MkdirAll(filepath.Join(tree, "sub"), 0o755))
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tree, "a"), []byte("alpha"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(tree, "sub", "x"), []byte("inside"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "x"), []byte(outsideX), 0o644))
	return base, tree, outside
}

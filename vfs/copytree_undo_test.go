package vfs_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// createHookFS calls before(p) ahead of every Create through it.
type createHookFS struct {
	vfs.DeleteVersionFS
	before func(p vfs.Path)
}

func (h createHookFS) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	h.before(p)
	return h.DeleteVersionFS.Create(ctx, p, mode)
}

// TestCopyTreeUndoKeepsAFileRewrittenSinceTheCopyWroteIt: the copy writes a
// and b/c, someone rewrites a, then b/d/e fails (it exists): the undo deletes
// b/c but leaves their a byte for byte, and its error names a.
func TestCopyTreeUndoKeepsAFileRewrittenSinceTheCopyWroteIt(t *testing.T) {
	roots := map[string]func(t *testing.T) (vfs.DeleteVersionFS, vfs.Path){
		"memfs": func(t *testing.T) (vfs.DeleteVersionFS, vfs.Path) { return memfs.NewTest(t) },
		"file": func(t *testing.T) (vfs.DeleteVersionFS, vfs.Path) {
			return local.New(), vfs.MustPath("file://" + t.TempDir())
		},
	}
	for name, newRoot := range roots {
		t.Run(name, func(t *testing.T) {
			src, sroot := memfs.NewTest(t)
			writeFiles(t, src, sroot, sample)
			dst, droot := newRoot(t)
			writeFiles(t, dst, droot, map[string]string{"b/d/e": "theirs"})
			const theirs = "their a, written after the copy wrote its own"
			hooked := createHookFS{DeleteVersionFS: dst, before: func(p vfs.Path) {
				if p == droot.Join("b/d/e") {
					require.NoError(t, vfs.WriteFile(bg, dst, droot.Join("a"), []byte(theirs), vfs.Overwrite))
				}
			}}
			_, err := vfs.CopyTree(bg, hooked, droot, src, sroot, vfs.CopyOptions{Concurrency: 1})
			require.ErrorIs(t, err, vfs.ErrChanged)
			assert.Contains(t, err.Error(), droot.Join("a").String())
			assert.Equal(t, map[string]string{"a": theirs, "b/d/e": "theirs"}, readTree(t, dst, droot),
				"b/c, still the copy's, is undone; a, rewritten, and b/d/e, which was there, stay")
		})
	}
}

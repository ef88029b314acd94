package chaos

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// TestSweepTemp leaves two writers' temporary files behind (streams never
// closed, as a killed writer leaves them) beside a finished file and a file
// whose name only looks like a temporary one: the sweep removes exactly the
// two, finds none after, and leaves the rest byte for byte; a missing
// directory and a zero path are skipped, and memory:// has nothing to sweep.
func TestSweepTemp(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	root := vfs.MustPath("file://" + filepath.ToSlash(dir))
	reg := vfs.DefaultRegistry()
	fsys, err := reg.GetPath(ctx, root)
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(ctx, fsys, root.Join("a", "done"), []byte("finished"), vfs.NoOverwrite))
	for _, p := range []vfs.Path{root.Join("a", "pending"), root.Join("b", "c", "pending")} {
		require.NoError(t, fsys.Mkdirs(ctx, p.Parent()))
		out, err := fsys.Create(ctx, p, vfs.NoOverwrite)
		require.NoError(t, err)
		_, err = out.Write([]byte("half written"))
		require.NoError(t, err)
		t.Cleanup(func() { _ = out.Close() }) // fails: the sweep took its file
	}
	lookalike := filepath.Join(dir, "a", ".vfskit-tmp-not-ours")
	require.NoError(t, os.WriteFile(lookalike, []byte("keep"), 0o644))
	temps := func() (n int) {
		require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasPrefix(d.Name(), ".vfskit-tmp-") && p != lookalike {
				n++
			}
			return err
		}))
		return n
	}
	require.Equal(t, 2, temps(), "two temporary files left by the unfinished writers")

	removed, left, err := sweepTemp(ctx, reg, root, vfs.Path{}, root.Join("missing"))
	require.NoError(t, err)
	assert.Len(t, removed, 2)
	assert.Empty(t, left)
	assert.Zero(t, temps(), "no temporary file left")
	got, err := os.ReadFile(filepath.Join(dir, "a", "done"))
	require.NoError(t, err)
	assert.Equal(t, "finished", string(got))
	got, err = os.ReadFile(lookalike)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(got), "a name that only looks like a temporary file stays")
	for _, p := range []string{"a/pending", "b/c/pending"} {
		assert.NoFileExists(t, filepath.Join(dir, filepath.FromSlash(p)), "nothing was published")
	}

	_, mem := memfs.NewTest(t)
	removed, left, err = sweepTemp(ctx, reg, mem)
	require.NoError(t, err)
	assert.Empty(t, removed)
	assert.Empty(t, left)
}

// TestUnexplainedTemp: a temporary file left in a cycle is explained by a
// killed writer, or by the library's report of leaving it in a cycle a fault
// hit; a report without a fault, or a fault without a report, explains
// nothing.
func TestUnexplainedTemp(t *testing.T) {
	a, b := vfs.MustPath("s3://b/chk-1/.vfskit-upload-a"), vfs.MustPath("s3://b/chk-1/.vfskit-upload-b")
	removed := []vfs.Path{a, b}
	assert.Empty(t, unexplainedTemp(removed, nil, true, false), "a killed writer explains all")
	assert.Equal(t, []vfs.Path{b}, unexplainedTemp(removed, []vfs.Path{a}, false, true), "only the reported one, under a fault")
	assert.Equal(t, removed, unexplainedTemp(removed, removed, false, false), "a report without a fault")
	assert.Equal(t, removed, unexplainedTemp(removed, nil, false, true), "a fault without a report")
	assert.Empty(t, unexplainedTemp(nil, nil, false, false))
}

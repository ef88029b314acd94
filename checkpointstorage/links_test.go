package checkpointstorage_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
)

// localTree returns every file below root (links not followed, a link listed
// as its target's name) with its bytes.
func localTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			require.NoError(t, err)
			out[p] = "-> " + target
		case !d.IsDir():
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			out[p] = string(b)
		}
		return nil
	}))
	return out
}

// TestCheckpointToolsNeverFollowLinks plants, in job A, a chk-0 that is a
// symbolic link into job B's newest checkpoint: gc, retention, the audit and
// its deletion, discard and dispose report it or refuse it, and nothing of
// job B changes, byte for byte.
func TestCheckpointToolsNeverFollowLinks(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	base := fileURI(filepath.Join(dir, "ckpt"))
	jobA, _ := vfskitJob(t, base)
	jobB, _ := vfskitJob(t, base)
	localA, localB := filepath.Join(dir, "ckpt", jobA.Name()), filepath.Join(dir, "ckpt", jobB.Name())
	require.NoError(t, os.Symlink(filepath.Join(localB, "chk-2"), filepath.Join(localA, "chk-0")))
	before := localTree(t, localB)
	link := jobA.Join("chk-0")

	r, err := cs.DiscardCheckpoint(ctx, link)
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "symbolic link")
	assert.NotEmpty(t, r.Kept)
	assert.Equal(t, before, localTree(t, localB), "discard")

	_, loc, err := cs.LoadCheckpoint(ctx, link.String())
	require.NoError(t, err, "reading through a link is harmless")
	require.ErrorIs(t, loc.DisposeStorageLocation(ctx), fs.ErrInvalid)
	assert.Equal(t, before, localTree(t, localB), "dispose")

	inv, err := cs.TakeInventory(ctx, jobA)
	require.NoError(t, err)
	require.Len(t, inv.Snapshots, 3)
	assert.True(t, inv.Snapshots[0].Link, "listed as a link")
	assert.False(t, inv.Snapshots[0].HasMetadata, "not entered")

	jobs, err := cs.CollectGarbage(ctx, jobA, 1)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.Len(t, jobs[0].Reports, 2)
	assert.Equal(t, link, jobs[0].Reports[0].Dir)
	assert.Contains(t, jobs[0].Reports[0].Kept, "symbolic link")
	assert.True(t, jobs[0].Reports[1].Removed(), "chk-1 of A goes")
	assert.Equal(t, before, localTree(t, localB), "gc")

	_, err = cs.RetainCheckpoints(ctx, jobA, 1)
	require.NoError(t, err)
	a, err := cs.AuditJob(ctx, jobA)
	require.NoError(t, err)
	_, err = cs.DeleteOrphans(ctx, a)
	require.NoError(t, err)
	assert.Equal(t, before, localTree(t, localB), "retention and audit")
	_, err = os.Lstat(filepath.Join(localA, "chk-0"))
	assert.NoError(t, err, "the link itself is reported, not removed")
}

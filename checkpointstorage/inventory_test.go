package checkpointstorage_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// TestInventoryOfFlinkBase takes stock of a base directory holding Flink's
// three incremental jobs, a checkpoint in progress, one whose _metadata is
// damaged, and savepoints one level down.
func TestInventoryOfFlinkBase(t *testing.T) {
	root, _ := copyFixtures(t, gimralBase)
	base := filepath.Join(root, gimralBase)
	const job = "fe70b46528a700492a57752c1e19e1bb"
	require.NoError(t, os.MkdirAll(filepath.Join(base, job, "chk-30"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, job, "chk-30", "part"), []byte("1234"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(base, job, "chk-31"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, job, "chk-31", "_metadata"), []byte("\x49\x60\x67\x2d\x00\x00\x00\x03junk"), 0o644))
	sp := filepath.Join(base, "savepoints", "savepoint-fe70b4-0123456789ab")
	require.NoError(t, os.CopyFS(sp, os.DirFS(filepath.Join(base, job, "chk-29"))))

	inv, err := cs.TakeInventory(t.Context(), fileURI(base))
	require.NoError(t, err)
	require.Len(t, inv.Jobs, 3)
	var total int64
	for _, j := range inv.Jobs {
		total += j.Bytes
	}
	require.Len(t, inv.Snapshots, 3+2+1)
	byDir := map[string]cs.Snapshot{}
	for _, s := range inv.Snapshots {
		rel, _ := filepath.Rel(base, filepath.FromSlash(s.Dir.Path()))
		byDir[filepath.ToSlash(rel)] = s
	}
	chk29 := byDir[job+"/chk-29"]
	assert.True(t, chk29.Completed)
	assert.Equal(t, metadata.FormatFlink, chk29.Format)
	assert.Equal(t, 3, chk29.Version)
	assert.Equal(t, int64(29), chk29.CheckpointID)
	assert.Equal(t, job, chk29.Job)
	assert.Equal(t, 4, chk29.Files)
	inProgress := byDir[job+"/chk-30"]
	assert.False(t, inProgress.Completed || inProgress.HasMetadata)
	assert.Equal(t, int64(4), inProgress.Bytes)
	damaged := byDir[job+"/chk-31"]
	assert.True(t, damaged.HasMetadata)
	assert.False(t, damaged.Completed)
	require.ErrorIs(t, damaged.Err, cs.ErrCorruptMetadata)
	savepoint := byDir["savepoints/savepoint-fe70b4-0123456789ab"]
	assert.True(t, savepoint.Savepoint && savepoint.Completed)
	assert.Equal(t, int64(29), savepoint.CheckpointID, "the id comes from the metadata")
	assert.Equal(t, total+savepoint.Bytes, inv.Bytes)

	// A job directory, and one checkpoint, alone.
	one, err := cs.TakeInventory(t.Context(), fileURI(filepath.Join(base, job)))
	require.NoError(t, err)
	assert.Len(t, one.Jobs, 1)
	assert.Len(t, one.Snapshots, 3)
	single, err := cs.TakeInventory(t.Context(), fileURI(sp))
	require.NoError(t, err)
	require.Len(t, single.Snapshots, 1)
	assert.True(t, single.Snapshots[0].Completed)

	_, err = cs.TakeInventory(t.Context(), fileURI(filepath.Join(sp, "_metadata")))
	require.ErrorIs(t, err, vfs.ErrNotDir)
}

package checkpointstorage_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

// TestAuditKeepsASnapshotOfAnyName: a directory in a job's directory that
// holds a _metadata, whatever its name (a savepoint a user copied there), is
// a snapshot: the audit never offers its _metadata for deletion, and
// DeleteOrphans leaves it.
func TestAuditKeepsASnapshotOfAnyName(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	base := fileURI(dir)
	s, err := cs.NewFsCheckpointStorage(ctx, cs.NewJobID(), base, vfs.Path{}, 10, 0)
	require.NoError(t, err)
	job := cs.JobCheckpointsDir(base, s.JobID())
	for id := int64(1); id <= 2; id++ {
		loc, err := s.InitializeLocationForCheckpoint(ctx, id)
		require.NoError(t, err)
		_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(s.JobID(), id, writeState(t, loc, cs.Exclusive, pattern(50, byte(id)), 0)))
		require.NoError(t, err)
	}
	jobDir := filepath.Join(dir, s.JobID().String())
	meta, err := os.ReadFile(filepath.Join(jobDir, "chk-1", cs.MetadataFileName))
	require.NoError(t, err)
	sp := filepath.Join(jobDir, "my-savepoint")
	require.NoError(t, os.MkdirAll(sp, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sp, cs.MetadataFileName), meta, 0o644))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(sp, cs.MetadataFileName), old, old))

	a, err := cs.AuditJob(ctx, job)
	require.NoError(t, err)
	for _, o := range a.Orphans {
		assert.False(t, o.Deletable && o.Path.Name() == cs.MetadataFileName, "a _metadata offered for deletion: %+v", o)
	}
	_, err = cs.DeleteOrphans(ctx, a)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(sp, cs.MetadataFileName))
	require.NoError(t, err, "the savepoint of any name is still there")
	assert.Equal(t, meta, got)
}

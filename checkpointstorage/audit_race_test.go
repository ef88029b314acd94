package checkpointstorage_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

// TestAuditDeleteWhileCheckpointing runs audits with --delete while the job
// keeps writing checkpoints with shared state: old orphans go, and every
// checkpoint that completed still verifies, whatever the interleaving.
func TestAuditDeleteWhileCheckpointing(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	base := fileURI(dir)
	s, err := cs.NewFsCheckpointStorage(ctx, cs.NewJobID(), base, vfs.Path{}, 10, 0)
	require.NoError(t, err)
	job := cs.JobCheckpointsDir(base, s.JobID())
	checkpoint := func(id int64) {
		loc, err := s.InitializeLocationForCheckpoint(ctx, id)
		require.NoError(t, err)
		var hs []cs.StreamStateHandle
		for i := range 4 {
			hs = append(hs, writeState(t, loc, cs.Shared, pattern(100, byte(id)+byte(i)), 0))
			hs = append(hs, writeState(t, loc, cs.Exclusive, pattern(50, byte(id)), 0))
		}
		_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(s.JobID(), id, hs...))
		require.NoError(t, err)
	}
	checkpoint(1)
	old := time.Now().Add(-time.Hour)
	var orphans []string
	for i := range 5 {
		p := filepath.Join(dir, s.JobID().String(), "shared", "orphan-"+itoa(int64(i)))
		require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
		require.NoError(t, os.Chtimes(p, old, old))
		orphans = append(orphans, p)
	}

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for id := int64(2); id <= 8; id++ {
			checkpoint(id)
		}
	}()
	for range 10 {
		a, err := cs.AuditJob(ctx, job)
		require.NoError(t, err)
		_, err = cs.DeleteOrphans(ctx, a)
		require.NoError(t, err)
	}
	wg.Wait()
	a, err := cs.AuditJob(ctx, job)
	require.NoError(t, err)
	_, err = cs.DeleteOrphans(ctx, a)
	require.NoError(t, err)
	for _, p := range orphans {
		assert.NoFileExists(t, p)
	}
	infos, err := cs.ListCompletedCheckpoints(ctx, job)
	require.NoError(t, err)
	require.Len(t, infos, 8)
	for _, info := range infos {
		v, err := cs.VerifyCheckpoint(ctx, info.Dir)
		require.NoError(t, err)
		assert.True(t, v.OK(), "chk-%d: %v", info.CheckpointID, v.Problems())
		_, _, err = cs.LoadCheckpoint(ctx, info.Dir.String())
		require.NoError(t, err)
	}
}

// TestDeleteOrphansLeavesAnOrphanRewrittenSinceTheAudit: an orphan written
// again between the audit and the delete is not the file the audit judged
// unneeded; DeleteOrphans leaves it (with its new bytes) and deletes the
// others. One removed by someone else meanwhile is gone as asked: it is
// reported deleted, as after a delete whose answer was lost.
func TestDeleteOrphansLeavesAnOrphanRewrittenSinceTheAudit(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	base := fileURI(dir)
	s, err := cs.NewFsCheckpointStorage(ctx, cs.NewJobID(), base, vfs.Path{}, 10, 0)
	require.NoError(t, err)
	job := cs.JobCheckpointsDir(base, s.JobID())
	old := time.Now().Add(-time.Hour)
	shared := filepath.Join(dir, s.JobID().String(), "shared")
	require.NoError(t, os.MkdirAll(shared, 0o755))
	for _, n := range []string{"kept", "gone", "removed"} {
		p := filepath.Join(shared, n)
		require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
		require.NoError(t, os.Chtimes(p, old, old))
	}
	loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
	require.NoError(t, err)
	_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(s.JobID(), 1, writeState(t, loc, cs.Exclusive, pattern(50, 1), 0)))
	require.NoError(t, err)

	a, err := cs.AuditJob(ctx, job)
	require.NoError(t, err)
	deletable := 0
	for _, o := range a.Orphans {
		if o.Deletable {
			deletable++
		}
	}
	require.Equal(t, 3, deletable, "every orphan is deletable: %+v", a.Orphans)
	require.NoError(t, os.WriteFile(filepath.Join(shared, "kept"), []byte("written again after the audit"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(shared, "removed")))

	deleted, err := cs.DeleteOrphans(ctx, a)
	require.NoError(t, err)
	var names []string
	for _, p := range deleted {
		names = append(names, p.Name())
	}
	assert.ElementsMatch(t, []string{"gone", "removed"}, names)
	got, err := os.ReadFile(filepath.Join(shared, "kept"))
	require.NoError(t, err, "the orphan rewritten since the audit is still there")
	assert.Equal(t, "written again after the audit", string(got))
}

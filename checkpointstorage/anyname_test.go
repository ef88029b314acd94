package checkpointstorage_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// TestAuditKeepsASnapshotOfAnyName: a directory in a job's directory that
// holds a _metadata, whatever its name (a savepoint a user copied there), is
// a snapshot: the audit never offers its _metadata for deletion, and
// DeleteOrphans leaves it.
func TestAuditKeepsASnapshotOfAnyName(t *testing.T) {
	ctx := t.Context()
	_, job, jobDir := anyNameJob(t, 1, 2)
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

// TestScanFindsSnapshotsOfAnyNameAtAnyDepth: a savepoint-* directory nested
// in a job's directory (<job>/savepoints/savepoint-x) and a directory of any
// name holding a _metadata are snapshots for the inventory, the audit and gc
// alike: each listed once, none of their files an orphan, none removed.
func TestScanFindsSnapshotsOfAnyNameAtAnyDepth(t *testing.T) {
	ctx := t.Context()
	_, job, jobDir := anyNameJob(t, 1, 2, 3)
	meta, err := os.ReadFile(filepath.Join(jobDir, "chk-1", cs.MetadataFileName))
	require.NoError(t, err)
	old := time.Now().Add(-time.Hour)
	odd := []string{"savepoints/savepoint-abc123-0123456789ab", "pinned", "keep/this/one"}
	for _, d := range odd {
		p := filepath.Join(jobDir, filepath.FromSlash(d), cs.MetadataFileName)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, meta, 0o644))
		require.NoError(t, os.Chtimes(p, old, old))
	}

	inv, err := cs.TakeInventory(ctx, job)
	require.NoError(t, err)
	seen := map[string]int{}
	for _, sn := range inv.Snapshots {
		rel, _ := sn.Dir.Rel(job)
		seen[rel]++
	}
	for _, d := range append(odd, "chk-1", "chk-2", "chk-3") {
		assert.Equal(t, 1, seen[d], "%s listed once: %v", d, seen)
	}
	assert.Len(t, inv.Snapshots, 6, "%v", seen)
	assert.Empty(t, inv.Skipped)

	a, err := cs.AuditJob(ctx, job)
	require.NoError(t, err)
	assert.Len(t, a.Snapshots, 6)
	assert.Empty(t, a.Orphans, "the _metadata of every snapshot, whatever its name and depth, is referenced")

	jobs, err := cs.CollectGarbage(ctx, job, 1)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	assert.Len(t, jobs[0].Checkpoints, 3, "gc counts the job's chk-N only")
	assert.Equal(t, 2, jobs[0].Removed())
	for _, d := range odd {
		got, err := os.ReadFile(filepath.Join(jobDir, filepath.FromSlash(d), cs.MetadataFileName))
		require.NoError(t, err, "%s is still there", d)
		assert.Equal(t, meta, got)
	}
}

// TestInProgressRuleIgnoresSnapshotsOfOtherNames: a copy of a newer
// checkpoint's _metadata under another name (here one recording checkpoint
// 99, written after the running checkpoint's files) does not make the
// checkpoint in progress look like a failed one's leftover: gc and the audit
// judge by the job's chk-N directories only.
func TestInProgressRuleIgnoresSnapshotsOfOtherNames(t *testing.T) {
	ctx := t.Context()
	s, job, jobDir := anyNameJob(t, 1, 99)
	require.NoError(t, os.Rename(filepath.Join(jobDir, "chk-99"), filepath.Join(jobDir, "pinned")))
	// chk-2 is running: a state file, no _metadata yet.
	loc, err := s.InitializeLocationForCheckpoint(ctx, 2)
	require.NoError(t, err)
	writeState(t, loc, cs.Exclusive, pattern(50, 2), 0)
	// Times: chk-1 oldest, then chk-2's file, then the copy named pinned.
	at := time.Now().Add(-3 * time.Hour)
	require.NoError(t, filepath.Walk(jobDir, func(p string, info os.FileInfo, err error) error {
		require.NoError(t, err)
		if info.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(jobDir, p)
		when := at
		switch strings.SplitN(filepath.ToSlash(rel), "/", 2)[0] {
		case "chk-2":
			when = at.Add(time.Hour)
		case "pinned":
			when = at.Add(2 * time.Hour)
		}
		return os.Chtimes(p, when, when)
	}))
	chk2 := filepath.Join(jobDir, "chk-2")
	before := snapshot(t, fileURI(chk2))
	require.NotEmpty(t, before)

	a, err := cs.AuditJob(ctx, job)
	require.NoError(t, err)
	for _, o := range a.Orphans {
		assert.False(t, o.Deletable, "%s of the running chk-2 offered for deletion", o.Path)
	}
	jobs, err := cs.CollectGarbage(ctx, job, 1)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	assert.Zero(t, jobs[0].Removed(), "%+v", jobs[0].Reports)
	assert.Equal(t, before, snapshot(t, fileURI(chk2)), "the running checkpoint is untouched")
}

// TestGCKeepsACheckpointAnotherSnapshotReferences: a snapshot of another name
// in the job's directory whose _metadata references a file of chk-1 by its
// absolute path (a _metadata copied aside to keep that state) keeps chk-1
// from gc, with the reason, as the audit counts that file referenced; chk-2
// still goes.
func TestGCKeepsACheckpointAnotherSnapshotReferences(t *testing.T) {
	ctx := t.Context()
	s, job, jobDir := anyNameJob(t, 1, 2, 3)
	chk1 := filepath.Join(jobDir, "chk-1")
	var state string
	for p := range snapshot(t, fileURI(chk1)) {
		if !strings.HasSuffix(p, "/"+cs.MetadataFileName) {
			state = p
		}
	}
	require.NotEmpty(t, state)
	m := sampleMetadata(s.JobID(), 1)
	m.Operators[0].Subtasks = []cs.SubtaskState{{Index: 0, Handles: []metadata.Handle{&metadata.FileStateHandle{Path: state, Size: 50}}}}
	data, err := m.MarshalBinary()
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(jobDir, "pinned"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(jobDir, "pinned", cs.MetadataFileName), data, 0o644))
	before := snapshot(t, fileURI(chk1))

	a, err := cs.AuditJob(ctx, job)
	require.NoError(t, err)
	assert.Empty(t, a.Missing())
	jobs, err := cs.CollectGarbage(ctx, job, 1)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.Len(t, jobs[0].Reports, 2)
	assert.Contains(t, jobs[0].Reports[0].Kept, "pinned, another snapshot in the job's directory, references its file")
	assert.True(t, jobs[0].Reports[1].Removed(), "chk-2 goes")
	assert.Equal(t, before, snapshot(t, fileURI(chk1)), "chk-1 is whole")
}

// anyNameJob writes a job's checkpoints with these ids, each with a file of
// exclusive state, into a temporary directory, and returns the storage, the
// job's directory and its local path.
func anyNameJob(t *testing.T, ids ...int64) (*cs.FsCheckpointStorage, vfs.Path, string) {
	t.Helper()
	dir := t.TempDir()
	base := fileURI(dir)
	s, err := cs.NewFsCheckpointStorage(t.Context(), cs.NewJobID(), base, vfs.Path{}, 10, 0)
	require.NoError(t, err)
	for _, id := range ids {
		loc, err := s.InitializeLocationForCheckpoint(t.Context(), id)
		require.NoError(t, err)
		_, err = cs.FinalizeCheckpoint(t.Context(), loc, sampleMetadata(s.JobID(), id, writeState(t, loc, cs.Exclusive, pattern(50, byte(id)), 0)))
		require.NoError(t, err)
	}
	return s, cs.JobCheckpointsDir(base, s.JobID()), filepath.Join(dir, s.JobID().String())
}

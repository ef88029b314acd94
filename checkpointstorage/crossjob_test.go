package checkpointstorage_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// TestSharedStateAcrossJobs: job B was restored from job A's chk-1 (CLAIM
// mode) and its checkpoint references A's shared file. gc and audit --delete
// on A (and on the base directory) leave that file, and B restores byte for
// byte. While a third job's _metadata cannot be decoded, the audit refuses to
// delete any shared state and gc any checkpoint, saying why.
func TestSharedStateAcrossJobs(t *testing.T) {
	for _, base := range []vfs.Path{memPath("memory://crossjob/ckpt"), fileURI(filepath.Join(t.TempDir(), "ckpt"))} {
		t.Run(base.Scheme(), func(t *testing.T) {
			ctx := t.Context()
			jobA, _ := vfskitJob(t, base)
			old, _, err := cs.LoadCheckpoint(ctx, jobA.Join("chk-1").String())
			require.NoError(t, err)
			var shared cs.StreamStateHandle
			for _, h := range old.Handles() {
				if fh, ok := h.(*cs.FileStateHandle); ok && fh.Scope == cs.Shared {
					shared = fh
				}
			}
			require.NotNil(t, shared)
			want := readHandle(t, shared)

			sB, jobB := newFsStorage(t, base, testThreshold, 0)
			loc, err := sB.InitializeLocationForCheckpoint(ctx, 3)
			require.NoError(t, err)
			_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(jobB, 3, shared))
			require.NoError(t, err)

			refs, err := cs.ScanReferences(ctx, base)
			require.NoError(t, err)
			assert.Empty(t, refs.Blind)
			sharedPath := shared.(*cs.FileStateHandle).FilePath
			assert.Equal(t, []vfs.Path{cs.JobCheckpointsDir(base, jobB).Join("chk-3")}, refs.Outside(jobA, sharedPath))

			jobs, err := cs.CollectGarbage(ctx, base, 1)
			require.NoError(t, err)
			require.Len(t, jobs, 2)
			a, err := cs.AuditJob(ctx, jobA)
			require.NoError(t, err)
			var orphan *cs.Orphan
			for i := range a.Orphans {
				if a.Orphans[i].Path == sharedPath {
					orphan = &a.Orphans[i]
				}
			}
			require.NotNil(t, orphan, "no checkpoint of A references it any more")
			assert.False(t, orphan.Deletable)
			assert.Contains(t, orphan.Reason, "another job")
			_, err = cs.DeleteOrphans(ctx, a)
			require.NoError(t, err)

			restored, _, err := cs.LoadCheckpoint(ctx, cs.JobCheckpointsDir(base, jobB).Join("chk-3").String())
			require.NoError(t, err)
			checkRestored(t, restored, [][]byte{want})

			// A job whose metadata cannot be decoded may reference anything.
			jobC := cs.JobCheckpointsDir(base, cs.NewJobID())
			require.NoError(t, vfs.WriteFile(ctx, fsOf(t, base), jobC.Join("chk-1", cs.MetadataFileName), []byte("VFKC?"), vfs.NoOverwrite))
			a, err = cs.AuditJob(ctx, jobA)
			require.NoError(t, err)
			require.NotEmpty(t, a.Orphans)
			for _, o := range a.Orphans {
				assert.False(t, o.Deletable, o.Path)
				if o.Path != sharedPath {
					assert.Contains(t, o.Reason, "cannot see what every job under")
				}
			}
			jobs, err = cs.CollectGarbage(ctx, jobA, 1, cs.WithDryRun())
			require.NoError(t, err)
			require.Len(t, jobs, 1)
			assert.Zero(t, jobs[0].Removed())
		})
	}
}

// TestGCAndAuditAgreeOnInProgress: gc's failed leftovers are exactly the
// chk-N directories without _metadata whose files the audit finds deletable,
// under the one "may be in progress" rule: lower id than the newest completed
// checkpoint and older than its _metadata.
func TestGCAndAuditAgreeOnInProgress(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	base := fileURI(filepath.Join(dir, "ckpt"))
	jobDir, _ := vfskitJob(t, base) // chk-1, chk-2
	local := filepath.Join(dir, "ckpt", jobDir.Name())
	st, err := os.Stat(filepath.Join(local, "chk-2", cs.MetadataFileName))
	require.NoError(t, err)
	plant := func(chk string, at time.Time) {
		p := filepath.Join(local, chk, "state")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(chk), 0o644))
		require.NoError(t, os.Chtimes(p, at, at))
	}
	older, newer := st.ModTime().Add(-time.Hour), st.ModTime().Add(time.Hour)
	plant("chk-0", older)       // failed: goes
	plant("chk-00", older)      // not a checkpoint's name
	plant("chk-1/extra", older) // inside a completed one: the audit's only
	plant("chk-3", older)       // id above the newest: may be in progress
	plant("chk-4", newer)       // and newer

	check := func(want ...vfs.Path) {
		t.Helper()
		jobs, err := cs.CollectGarbage(ctx, jobDir, 5, cs.WithDryRun())
		require.NoError(t, err)
		require.Len(t, jobs, 1)
		leftovers := map[vfs.Path]bool{}
		for _, r := range jobs[0].Reports {
			if r.Leftover && r.Removed() {
				leftovers[r.Dir] = true
			}
		}
		a, err := cs.AuditJob(ctx, jobDir)
		require.NoError(t, err)
		deletable := map[vfs.Path]bool{}
		for _, o := range a.Orphans {
			d := o.Path.Parent()
			if _, chk := cs.ParseCheckpointDirName(d.Name()); chk && o.Deletable && d != jobDir.Join("chk-1") {
				deletable[d] = true
			}
		}
		wantSet := map[vfs.Path]bool{}
		for _, w := range want {
			wantSet[w] = true
		}
		assert.Equal(t, wantSet, leftovers, "gc's leftovers")
		assert.Equal(t, wantSet, deletable, "the directories whose files the audit deletes")
	}
	check(jobDir.Join("chk-0"))
	// A lower id written after the newest completed checkpoint (a job
	// restarted under the same id from an older checkpoint) may be in
	// progress for both.
	plant("chk-0", newer)
	check()
}

// TestDeleteOrphansAsksOtherJobsAgain: a job restored from job A after A's
// audit references A's orphaned shared file; deleting the audit's orphans
// leaves it, and B restores.
func TestDeleteOrphansAsksOtherJobsAgain(t *testing.T) {
	ctx := t.Context()
	base := memPath("memory://crossjob-late/ckpt")
	jobA, _ := vfskitJob(t, base)
	old, _, err := cs.LoadCheckpoint(ctx, jobA.Join("chk-1").String())
	require.NoError(t, err)
	var shared *cs.FileStateHandle
	for _, h := range old.Handles() {
		if fh, ok := h.(*cs.FileStateHandle); ok && fh.Scope == cs.Shared {
			shared = fh
		}
	}
	require.NotNil(t, shared)
	want := readHandle(t, shared)
	_, err = cs.RetainCheckpoints(ctx, jobA, 1)
	require.NoError(t, err)
	a, err := cs.AuditJob(ctx, jobA)
	require.NoError(t, err)
	deletable := false
	for _, o := range a.Orphans {
		deletable = deletable || o.Path == shared.FilePath && o.Deletable
	}
	require.True(t, deletable, "nothing references it at the audit")

	sB, jobB := newFsStorage(t, base, testThreshold, 0)
	loc, err := sB.InitializeLocationForCheckpoint(ctx, 3)
	require.NoError(t, err)
	_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(jobB, 3, shared))
	require.NoError(t, err)

	deleted, err := cs.DeleteOrphans(ctx, a)
	require.NoError(t, err)
	assert.NotContains(t, deleted, shared.FilePath)
	restored, _, err := cs.LoadCheckpoint(ctx, cs.JobCheckpointsDir(base, jobB).Join("chk-3").String())
	require.NoError(t, err)
	checkRestored(t, restored, [][]byte{want})
}

// TestRetainKeepsWhatAnotherJobReferences: job B, restored from job A in
// CLAIM mode, references a file of A's chk-1 and one of A's shared files.
// RetainCheckpoints(A, 1) keeps chk-1, saying which checkpoint of B
// references which file (the dry run says the same), and both files stay
// byte for byte. While a third job's _metadata cannot be decoded, it keeps
// every checkpoint, saying why.
func TestRetainKeepsWhatAnotherJobReferences(t *testing.T) {
	for _, b := range []backend{memoryBackend, fileBackend} {
		t.Run(b.name, func(t *testing.T) {
			ctx := t.Context()
			base := b.base(t)
			fsys := fsOf(t, base)
			jobA, _ := vfskitJob(t, base) // chk-1, chk-2
			old, _, err := cs.LoadCheckpoint(ctx, jobA.Join("chk-1").String())
			require.NoError(t, err)
			var exclusive, shared *cs.FileStateHandle
			for _, h := range old.Handles() {
				switch h := h.(type) {
				case *cs.RelativeFileStateHandle:
					exclusive = &h.FileStateHandle
				case *cs.FileStateHandle:
					if h.Scope == cs.Shared {
						shared = h
					} else {
						exclusive = h
					}
				}
			}
			require.NotNil(t, exclusive)
			require.NotNil(t, shared)
			require.True(t, exclusive.FilePath.Parent() == jobA.Join("chk-1"), exclusive.FilePath.String())
			want := map[vfs.Path][]byte{}
			for _, p := range []vfs.Path{exclusive.FilePath, shared.FilePath} {
				want[p], err = vfs.ReadFile(ctx, fsys, p)
				require.NoError(t, err)
			}

			jobB := cs.JobCheckpointsDir(base, cs.NewJobID())
			m := sampleMetadata(cs.NewJobID(), 3)
			m.Operators[0].Subtasks = []cs.SubtaskState{{Index: 0, Handles: []metadata.Handle{
				&metadata.FileStateHandle{Path: exclusive.FilePath.String(), Size: exclusive.Size},
				&metadata.FileStateHandle{Path: shared.FilePath.String(), Size: shared.Size, Shared: true}}}}
			data, err := m.MarshalBinary()
			require.NoError(t, err)
			require.NoError(t, vfs.WriteFile(ctx, fsys, jobB.Join("chk-3", cs.MetadataFileName), data, vfs.NoOverwrite))
			chk1 := snapshot(t, jobA.Join("chk-1"))

			retainDryThenReal(t, jobA, 1, func(rs []cs.DiscardReport, dry bool) {
				require.Len(t, rs, 1, "dry run: %v", dry)
				assert.Equal(t, int64(1), rs[0].CheckpointID)
				assert.False(t, rs[0].Removed())
				assert.Contains(t, rs[0].Kept, jobB.Join("chk-3").Redacted()+" references its file "+exclusive.FilePath.Redacted())
			})
			assert.Equal(t, chk1, snapshot(t, jobA.Join("chk-1")), "chk-1 is whole")
			for p, w := range want {
				got, err := vfs.ReadFile(ctx, fsys, p)
				require.NoError(t, err)
				assert.True(t, bytes.Equal(w, got), "%s differs", p)
			}

			// A job whose metadata cannot be decoded may reference anything.
			jobC := cs.JobCheckpointsDir(base, cs.NewJobID())
			require.NoError(t, vfs.WriteFile(ctx, fsys, jobC.Join("chk-1", cs.MetadataFileName), []byte("VFKC?"), vfs.NoOverwrite))
			require.NoError(t, fsys.Delete(ctx, jobB, true))
			rs, err := cs.RetainCheckpoints(ctx, jobA, 1)
			require.NoError(t, err)
			require.Len(t, rs, 1)
			assert.Contains(t, rs[0].Kept, "cannot see what every job under")
			assert.Equal(t, chk1, snapshot(t, jobA.Join("chk-1")), "chk-1 is whole")
		})
	}
}

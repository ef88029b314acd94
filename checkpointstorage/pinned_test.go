package checkpointstorage_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// TestRetainKeepsACheckpointAnotherSnapshotReferences: RetainCheckpoints
// keeps a checkpoint holding a file that another snapshot in the job's
// directory references by its absolute path (a savepoint-*, or a directory
// of another name, however deep, holding a _metadata copied aside), with the
// reason, as CollectGarbage does; the dry run says the same; the checkpoint
// that nothing references still goes, and the kept ones are whole, byte for
// byte.
func TestRetainKeepsACheckpointAnotherSnapshotReferences(t *testing.T) {
	for _, b := range []backend{memoryBackend, fileBackend} {
		t.Run(b.name, func(t *testing.T) {
			ctx := t.Context()
			s, job := newFsStorage(t, b.base(t), 10, 0)
			jobDir := s.CheckpointsDirectory()
			fsys := fsOf(t, jobDir)
			states := map[int64]vfs.Path{}
			for id := int64(1); id <= 4; id++ {
				loc, err := s.InitializeLocationForCheckpoint(ctx, id)
				require.NoError(t, err)
				h := writeState(t, loc, cs.Exclusive, pattern(50, byte(id)), 0)
				states[id] = h.(*cs.RelativeFileStateHandle).FilePath
				_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, id, h))
				require.NoError(t, err)
			}
			// pin writes, in dir, a _metadata referencing chk-id's state file.
			pin := func(dir vfs.Path, id int64) {
				m := sampleMetadata(job, id)
				m.Operators[0].Subtasks = []cs.SubtaskState{{Index: 0, Handles: []metadata.Handle{
					&metadata.FileStateHandle{Path: states[id].String(), Size: 50}}}}
				data, err := m.MarshalBinary()
				require.NoError(t, err)
				require.NoError(t, vfs.WriteFile(ctx, fsys, dir.Join(cs.MetadataFileName), data, vfs.NoOverwrite))
			}
			pin(jobDir.Join("savepoint-aside"), 1)
			pin(jobDir.Join("kept", "aside"), 2)
			chk1, chk2 := snapshot(t, cs.CheckpointDir(jobDir, 1)), snapshot(t, cs.CheckpointDir(jobDir, 2))

			retainDryThenReal(t, jobDir, 1, func(rs []cs.DiscardReport, dry bool) {
				require.Len(t, rs, 3, "dry run: %v", dry)
				assert.Contains(t, rs[0].Kept, "savepoint-aside, another snapshot in the job's directory, references its file "+states[1].Redacted())
				assert.Contains(t, rs[1].Kept, "kept/aside, another snapshot in the job's directory, references its file "+states[2].Redacted())
				assert.False(t, rs[0].Removed() || rs[1].Removed())
				assert.True(t, rs[2].Removed(), "chk-3 goes")
				assert.Equal(t, int64(3), rs[2].CheckpointID)
			})
			assert.Equal(t, chk1, snapshot(t, cs.CheckpointDir(jobDir, 1)), "chk-1 is whole")
			assert.Equal(t, chk2, snapshot(t, cs.CheckpointDir(jobDir, 2)), "chk-2 is whole")
			assert.False(t, exists(t, cs.CheckpointDir(jobDir, 3)), "chk-3 is gone")
			infos, err := cs.ListCompletedCheckpoints(ctx, jobDir)
			require.NoError(t, err)
			var ids []string
			for _, i := range infos {
				ids = append(ids, i.Dir.Name())
			}
			assert.Equal(t, "chk-1 chk-2 chk-4", strings.Join(ids, " "))
		})
	}
}

// retainDryThenReal runs RetainCheckpoints(dir, retain) with WithDryRun, then
// without, and hands each run's reports to check.
func retainDryThenReal(t *testing.T, dir vfs.Path, retain int, check func(rs []cs.DiscardReport, dry bool)) {
	t.Helper()
	for _, dry := range []bool{true, false} {
		var opts []cs.Option
		if dry {
			opts = append(opts, cs.WithDryRun())
		}
		rs, err := cs.RetainCheckpoints(t.Context(), dir, retain, opts...)
		require.NoError(t, err)
		check(rs, dry)
	}
}

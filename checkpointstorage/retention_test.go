package checkpointstorage_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

func TestListLatestRetain(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		base := b.base(t)
		s, job := newFsStorage(t, base, 10, 0)
		jobDir := s.CheckpointsDirectory()

		// nothing yet
		infos, err := cs.ListCompletedCheckpoints(ctx, jobDir)
		require.NoError(t, err)
		require.Empty(t, infos)
		_, err = cs.LatestCompletedCheckpoint(ctx, jobDir)
		require.ErrorIs(t, err, fs.ErrNotExist)
		jobs, err := cs.ListJobs(ctx, base)
		require.NoError(t, err)
		require.Empty(t, jobs)

		shared := writeSharedState(t, s)
		type chk struct {
			id    int64
			files []vfs.Path
		}
		var done []chk
		for _, id := range []int64{1, 2, 3, 9, 10} { // 10 sorts after 9 numerically
			loc, err := s.InitializeLocationForCheckpoint(ctx, id)
			require.NoError(t, err)
			h := writeState(t, loc, cs.Exclusive, pattern(50, byte(id)), 0)
			_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, id, h, shared, cs.NewByteStreamStateHandle("i", []byte("x"))))
			require.NoError(t, err)
			done = append(done, chk{id, []vfs.Path{h.(*cs.RelativeFileStateHandle).FilePath}})
		}
		// in progress: state but no _metadata; and a stray directory
		inProgress, err := s.InitializeLocationForCheckpoint(ctx, 11)
		require.NoError(t, err)
		hp := writeState(t, inProgress, cs.Exclusive, pattern(50, 11), 0)
		require.NoError(t, vfs.WriteFile(ctx, fsOf(t, jobDir), jobDir.Join("chk-x", "_metadata"), []byte("x"), vfs.NoOverwrite))

		infos, err = cs.ListCompletedCheckpoints(ctx, jobDir)
		require.NoError(t, err)
		var ids []int64
		for _, info := range infos {
			ids = append(ids, info.CheckpointID)
			require.Equal(t, cs.CheckpointDir(jobDir, info.CheckpointID), info.Dir)
			require.Equal(t, info.Dir.Join(cs.MetadataFileName), info.MetadataPath)
			require.Positive(t, info.MetadataSize)
		}
		require.Equal(t, []int64{1, 2, 3, 9, 10}, ids)

		latest, err := cs.LatestCompletedCheckpoint(ctx, jobDir)
		require.NoError(t, err)
		require.Equal(t, int64(10), latest.CheckpointID)

		jobs, err = cs.ListJobs(ctx, base)
		require.NoError(t, err)
		require.Equal(t, []cs.JobID{job}, jobs)

		_, err = cs.RetainCheckpoints(ctx, jobDir, 0)
		require.ErrorIs(t, err, fs.ErrInvalid)

		discarded, err := cs.RetainCheckpoints(ctx, jobDir, 2)
		require.NoError(t, err)
		require.Len(t, discarded, 3)
		for i, c := range done {
			kept := i >= 3
			require.Equal(t, kept, exists(t, cs.CheckpointDir(jobDir, c.id)), "chk-%d", c.id)
			for _, f := range c.files {
				require.Equal(t, kept, exists(t, f), "%s", f)
			}
		}
		require.True(t, exists(t, shared.(*cs.FileStateHandle).FilePath), "shared state is kept")
		require.True(t, exists(t, hp.(*cs.RelativeFileStateHandle).FilePath), "checkpoint in progress is kept")

		again, err := cs.RetainCheckpoints(ctx, jobDir, 2)
		require.NoError(t, err)
		require.Empty(t, again)
		m, _, err := cs.LoadCheckpoint(ctx, latest.Dir.String())
		require.NoError(t, err)
		require.Equal(t, int64(10), m.CheckpointID)
	})
}

func writeSharedState(t *testing.T, s *cs.FsCheckpointStorage) cs.StreamStateHandle {
	t.Helper()
	f, err := s.ResolveCheckpointStorageLocation(t.Context(), 0, cs.DefaultLocationReference())
	require.NoError(t, err)
	return writeState(t, f, cs.Shared, pattern(100, 99), 0)
}

func TestDiscardCheckpointKeepsUndecodableMetadata(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		s, _ := newFsStorage(t, b.base(t), 0, 0)
		loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
		require.NoError(t, err)
		writeState(t, loc, cs.Exclusive, pattern(20, 1), 0)
		dir := loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()
		require.NoError(t, vfs.WriteFile(ctx, fsOf(t, dir), dir.Join(cs.MetadataFileName), []byte("junk"), vfs.NoOverwrite))
		before := snapshot(t, dir)
		r, err := cs.DiscardCheckpoint(ctx, dir)
		require.ErrorIs(t, err, cs.ErrCorruptMetadata)
		require.ErrorContains(t, err, "refusing to delete a checkpoint whose metadata cannot be decoded")
		require.ErrorIs(t, r.Undecodable, cs.ErrCorruptMetadata)
		require.Equal(t, before, snapshot(t, dir), "nothing deleted")

		require.NoError(t, fsOf(t, dir).Delete(ctx, dir, true))
		_, err = cs.DiscardCheckpoint(ctx, dir)
		require.NoError(t, err, "missing directory")
	})
}

func TestParseCheckpointDirName(t *testing.T) {
	for name, want := range map[string]int64{"chk-0": 0, "chk-1": 1, "chk-9223372036854775807": 1<<63 - 1} {
		id, ok := cs.ParseCheckpointDirName(name)
		require.True(t, ok, name)
		require.Equal(t, want, id)
	}
	for _, name := range []string{"", "chk-", "chk--1", "chk-+1", "chk-01", "chk-1a", "chk-9223372036854775808", "shared", "CHK-1", "chk- 1"} {
		_, ok := cs.ParseCheckpointDirName(name)
		require.False(t, ok, name)
	}
}

func TestParseJobDirName(t *testing.T) {
	job, err := cs.ParseJobID("fd72014d4c864993a2e5a9287b4a9c5d")
	require.NoError(t, err)
	id, ok := cs.ParseJobDirName(job.String())
	require.True(t, ok, job.String())
	require.Equal(t, job, id)
	for _, name := range []string{"", "shared", strings.ToUpper(job.String()), job.String()[1:], job.String() + "0", "chk-1"} {
		_, ok := cs.ParseJobDirName(name)
		require.False(t, ok, name)
	}
}

func TestDisposalGuards(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		base := b.base(t)
		fsys := fsOf(t, base)
		// a "checkpoint" given as a metadata file with another name, next to
		// unrelated files: disposal must not delete them
		dir := base.Join("home")
		s, job := newFsStorage(t, base, 0, 0)
		loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
		require.NoError(t, err)
		c, err := cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, 1))
		require.NoError(t, err)
		metadata, err := vfs.ReadFile(ctx, fsys, c.MetadataHandle().(*cs.FileStateHandle).FilePath)
		require.NoError(t, err)
		require.NoError(t, vfs.WriteFile(ctx, fsys, dir.Join("my-savepoint.bin"), metadata, vfs.NoOverwrite))
		require.NoError(t, vfs.WriteFile(ctx, fsys, dir.Join("precious.txt"), []byte("keep"), vfs.NoOverwrite))
		_, l, err := cs.LoadCheckpoint(ctx, dir.Join("my-savepoint.bin").String())
		require.NoError(t, err)
		require.ErrorIs(t, l.DisposeStorageLocation(ctx), vfs.ErrDirNotEmpty)
		require.True(t, exists(t, dir.Join("precious.txt")))

		// DiscardCheckpoint refuses a directory that is no checkpoint
		_, err = cs.DiscardCheckpoint(ctx, dir)
		require.ErrorIs(t, err, fs.ErrInvalid)
		require.ErrorContains(t, err, "not a checkpoint directory")
		require.True(t, exists(t, dir.Join("precious.txt")))
	})
}

// TestDisposalOfARootCheckpoint: a _metadata at the root of a file system (a
// bucket) makes a valid pointer, but disposing of it never deletes the root
// recursively. Not run on file://, whose root is the machine's.
func TestDisposalOfARootCheckpoint(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		if b.name == fileBackend.name {
			t.Skip("the root of file:// is the machine's")
		}
		ctx := t.Context()
		base := b.base(t)
		fsys := fsOf(t, base)
		root := base.MakeQualified(fsys)
		for !root.Parent().IsZero() {
			root = root.Parent()
		}
		require.Zero(t, root.Depth(), root.String())
		data := must(sampleMetadata(cs.NewJobID(), 1).MarshalBinary())
		require.NoError(t, vfs.WriteFile(ctx, fsys, root.Join(cs.MetadataFileName), data, vfs.NoOverwrite))
		require.NoError(t, vfs.WriteFile(ctx, fsys, root.Join("precious.txt"), []byte("keep"), vfs.NoOverwrite))

		_, l, err := cs.LoadCheckpoint(ctx, root.String())
		require.NoError(t, err)
		require.ErrorIs(t, l.DisposeStorageLocation(ctx), vfs.ErrDirNotEmpty)
		require.True(t, exists(t, root.Join("precious.txt")))

		_, err = cs.DiscardCheckpoint(ctx, root)
		require.ErrorIs(t, err, fs.ErrInvalid)
		require.ErrorContains(t, err, "refusing to discard the root of a file system")
		require.True(t, exists(t, root.Join("precious.txt")))
		require.True(t, exists(t, root.Join(cs.MetadataFileName)))
	})
}

// TestDisposeOnFailureWithMetadataDirectory: a chk-N whose _metadata is a
// directory this writer did not create keeps it: DisposeOnFailure deletes
// only what its own streams published.
func TestDisposeOnFailureWithMetadataDirectory(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		s, _ := newFsStorage(t, b.base(t), 0, 0)
		loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
		require.NoError(t, err)
		dir := loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()
		require.NoError(t, vfs.WriteFile(ctx, fsOf(t, dir), dir.Join(cs.MetadataFileName, "x"), []byte("x"), vfs.NoOverwrite))
		own := writeState(t, loc, cs.Exclusive, pattern(10, 1), 0)
		require.NoError(t, loc.DisposeOnFailure(ctx))
		require.True(t, exists(t, dir.Join(cs.MetadataFileName, "x")))
		require.False(t, exists(t, own.(*cs.RelativeFileStateHandle).FilePath))
	})
}

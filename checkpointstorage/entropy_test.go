package checkpointstorage_test

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

const entropyKey = "_entropy_"

func TestEntropyInjection(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		root := b.base(t)
		base := root.Join(entropyKey, "checkpoints")
		job := cs.NewJobID()
		opt := cs.WithEntropyInjection(entropyKey, 0) // default length 4
		s, err := cs.NewFsCheckpointStorage(ctx, job, base, vfs.Path{}, 10, 0, opt)
		require.NoError(t, err)
		loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
		require.NoError(t, err)
		fl := loc.(*cs.FsCheckpointStorageLocation)
		plainJobDir := cs.JobCheckpointsDir(root.Join("checkpoints"), job).MakeQualified(fsOf(t, root))
		require.Equal(t, cs.CheckpointDir(plainJobDir, 1), fl.CheckpointDir(), "metadata directory without the key")

		data := pattern(100, 1)
		h := writeState(t, loc, cs.Exclusive, data, 0)
		fh, ok := h.(*cs.FileStateHandle)
		require.True(t, ok, "entropy-injected state is absolute, got %T", h)
		require.Equal(t, cs.Exclusive, fh.Scope)
		rootPath := root.MakeQualified(fsOf(t, root)).Path()
		rest, ok := strings.CutPrefix(fh.FilePath.Path(), rootPath+"/")
		require.True(t, ok, fh.FilePath.String())
		require.Regexp(t, regexp.MustCompile(`^[a-zA-Z0-9]{4}/checkpoints/`+job.String()+`/chk-1/[0-9a-f-]{36}$`), rest)
		require.NotContains(t, fh.FilePath.String(), entropyKey)

		inline := writeState(t, loc, cs.Exclusive, []byte("x"), 0)
		require.Equal(t, cs.KindInline, cs.KindOf(inline))

		c, err := cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, 1, h, inline))
		require.NoError(t, err)
		require.Equal(t, fl.CheckpointDir().String(), c.ExternalPointer())
		require.NotContains(t, c.ExternalPointer(), entropyKey)
		m, _, err := cs.LoadCheckpoint(ctx, c.ExternalPointer())
		require.NoError(t, err)
		checkRestored(t, m, [][]byte{data, []byte("x")})

		// retention finds the checkpoint under the key-less path and discards
		// its entropy-injected files too
		for id := int64(2); id <= 3; id++ {
			l, err := s.InitializeLocationForCheckpoint(ctx, id)
			require.NoError(t, err)
			_, err = cs.FinalizeCheckpoint(ctx, l, sampleMetadata(job, id))
			require.NoError(t, err)
		}
		// without the option, the injected file is outside the job directory:
		// reported, never deleted
		dry, err := cs.RetainCheckpoints(ctx, plainJobDir, 2, cs.WithDryRun())
		require.NoError(t, err)
		require.Len(t, dry, 1)
		require.Equal(t, []vfs.Path{fh.FilePath}, dry[0].Outside)
		require.Empty(t, dry[0].Files)
		require.True(t, exists(t, fh.FilePath))
		require.True(t, exists(t, fl.CheckpointDir()), "a dry run deletes nothing")
		discarded, err := cs.RetainCheckpoints(ctx, plainJobDir, 2, opt)
		require.NoError(t, err)
		require.Len(t, discarded, 1)
		require.Equal(t, int64(1), discarded[0].CheckpointID)
		require.Equal(t, []vfs.Path{fh.FilePath}, discarded[0].Files)
		require.Empty(t, discarded[0].Outside)
		require.False(t, exists(t, fh.FilePath))
		require.False(t, exists(t, fl.CheckpointDir()))
	})
}

func TestEntropyLength(t *testing.T) {
	base := memoryBackend.base(t).Join(entropyKey)
	s, err := cs.NewFsCheckpointStorage(t.Context(), cs.NewJobID(), base, vfs.Path{}, 0, 0, cs.WithEntropyInjection(entropyKey, 9))
	require.NoError(t, err)
	loc, err := s.InitializeLocationForCheckpoint(t.Context(), 1)
	require.NoError(t, err)
	h := writeState(t, loc, cs.Exclusive, []byte("x"), 0).(*cs.FileStateHandle)
	require.Regexp(t, `/checkpoints/[a-zA-Z0-9]{9}/`, h.FilePath.Path())

	// without the key in the path, nothing changes
	s, err = cs.NewFsCheckpointStorage(t.Context(), cs.NewJobID(), memoryBackend.base(t), vfs.Path{}, 0, 0, cs.WithEntropyInjection(entropyKey, 9))
	require.NoError(t, err)
	loc, err = s.InitializeLocationForCheckpoint(t.Context(), 1)
	require.NoError(t, err)
	require.Equal(t, cs.KindRelativeFile, cs.KindOf(writeState(t, loc, cs.Exclusive, []byte("x"), 0)))
}

func TestEntropyBadOptions(t *testing.T) {
	ctx := t.Context()
	base := memoryBackend.base(t)
	for _, c := range `~#@*+%{}<>[]|"\` {
		key := "_ent" + string(c) + "ropy_"
		_, err := cs.NewFsCheckpointStorage(ctx, cs.NewJobID(), base, vfs.Path{}, 0, 0, cs.WithEntropyInjection(key, 4))
		require.ErrorIs(t, err, fs.ErrInvalid, key)
		require.ErrorContains(t, err, "Invalid character in value for s3.entropy.key : "+key)
		_, err = cs.NewMemoryBackendCheckpointStorage(ctx, cs.NewJobID(), base, vfs.Path{}, 0, cs.WithEntropyInjection(key, 4))
		require.ErrorIs(t, err, fs.ErrInvalid, key)
		_, _, err = cs.LoadCheckpoint(ctx, base.String(), cs.WithEntropyInjection(key, 4))
		require.ErrorIs(t, err, fs.ErrInvalid, key)
	}
	_, err := cs.NewFsCheckpointStorage(ctx, cs.NewJobID(), base, vfs.Path{}, 0, 0, cs.WithEntropyInjection(entropyKey, -1))
	require.ErrorIs(t, err, fs.ErrInvalid)
	require.ErrorContains(t, err, "s3.entropy.length must configure a value > 0")
}

// TestDiscardEntropyOnlyWhereTheKeyWas: a checkpoint whose metadata names
// exclusive files under ckpt2024/ and ckABCDpt/ (the checkpoints directory's
// name with four characters inserted inside it) does not own them: with
// entropy injection on, discarding it reports them as outside and leaves them,
// byte for byte; a file with the entropy as a whole segment goes.
func TestDiscardEntropyOnlyWhereTheKeyWas(t *testing.T) {
	ctx := t.Context()
	root := memPath("memory://entropy-exact/root")
	fsys := fsOf(t, root)
	s, job := newFsStorage(t, root.Join("ckpt"), testThreshold, 0)
	var victims, handles []cs.StreamStateHandle
	for _, parent := range []string{"ckpt2024", "ckABCDpt", "aZ09/ckpt"} {
		p := root.Join(parent, job.String(), "chk-1", "state").MakeQualified(fsys)
		require.NoError(t, vfs.WriteFile(ctx, fsys, p, []byte("precious "+parent), vfs.NoOverwrite))
		h := cs.NewFileStateHandle(p, int64(len("precious "+parent)))
		handles = append(handles, h)
		if parent != "aZ09/ckpt" {
			victims = append(victims, h)
		}
	}
	loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
	require.NoError(t, err)
	_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, 1, handles...))
	require.NoError(t, err)

	r, err := cs.DiscardCheckpoint(ctx, s.CheckpointsDirectory().Join("chk-1"), cs.WithEntropyInjection(entropyKey, 4))
	require.NoError(t, err)
	require.Len(t, r.Files, 1, "the whole-segment entropy file is the checkpoint's")
	require.Equal(t, handles[2].(*cs.FileStateHandle).FilePath, r.Files[0])
	require.Len(t, r.Outside, 2)
	for _, v := range victims {
		data, err := vfs.ReadFile(ctx, fsys, v.(*cs.FileStateHandle).FilePath)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(data), "precious "))
	}
	require.False(t, exists(t, handles[2].(*cs.FileStateHandle).FilePath))
}

// TestDiscardEntropyFileOnlyAtItsRecordedSize: the entropy-injected state
// files of a checkpoint lie outside its directory, where no listing sees
// them; one of them is written again (another size) before the checkpoint
// is discarded. Discarding (DiscardCheckpoint, RetainCheckpoints) deletes
// the other, whose size is the one the metadata records, and leaves that
// one with its bytes, named in DiscardReport.Left.
func TestDiscardEntropyFileOnlyAtItsRecordedSize(t *testing.T) {
	for _, how := range []string{"discard", "retain"} {
		t.Run(how, func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, b backend) {
				ctx := t.Context()
				root := b.base(t)
				opt := cs.WithEntropyInjection(entropyKey, 4)
				s, err := cs.NewFsCheckpointStorage(ctx, cs.NewJobID(), root.Join(entropyKey, "checkpoints"), vfs.Path{}, 10, 0, opt)
				require.NoError(t, err)
				var kept, gone vfs.Path
				for id := int64(1); id <= 2; id++ {
					loc, err := s.InitializeLocationForCheckpoint(ctx, id)
					require.NoError(t, err)
					h1 := writeState(t, loc, cs.Exclusive, pattern(100, byte(id)), 0)
					h2 := writeState(t, loc, cs.Exclusive, pattern(120, byte(id)), 0)
					_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(s.JobID(), id, h1, h2))
					require.NoError(t, err)
					if id == 1 {
						kept, gone = h1.(*cs.FileStateHandle).FilePath, h2.(*cs.FileStateHandle).FilePath
					}
				}
				fsys := fsOf(t, kept)
				other := pattern(101, 0xee)
				require.NoError(t, vfs.WriteFile(ctx, fsys, kept, other, vfs.Overwrite))

				jobDir := cs.JobCheckpointsDir(root.Join("checkpoints"), s.JobID()).MakeQualified(fsOf(t, root))
				var r cs.DiscardReport
				if how == "discard" {
					r, err = cs.DiscardCheckpoint(ctx, cs.CheckpointDir(jobDir, 1), opt)
					require.ErrorIs(t, err, vfs.ErrChanged)
					require.ErrorContains(t, err, kept.Redacted())
				} else {
					rs, err := cs.RetainCheckpoints(ctx, jobDir, 1, opt)
					require.NoError(t, err, "a partly removed checkpoint is reported, not an error")
					require.Len(t, rs, 1)
					r = rs[0]
				}
				require.ElementsMatch(t, []vfs.Path{kept, gone}, r.Files)
				require.Equal(t, []vfs.Path{kept}, r.Left)
				got, err := vfs.ReadFile(ctx, fsys, kept)
				require.NoError(t, err, "a file of another size than the metadata records is not deleted")
				require.Equal(t, other, got)
				require.False(t, exists(t, gone), "the file of the recorded size is deleted")
				require.False(t, exists(t, cs.CheckpointDir(jobDir, 1).Join(cs.MetadataFileName)))
				_, _, err = cs.LoadCheckpoint(ctx, cs.CheckpointDir(jobDir, 2).String())
				require.NoError(t, err, "the other checkpoint restores")
			})
		})
	}
}

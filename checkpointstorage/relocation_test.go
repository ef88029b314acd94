package checkpointstorage_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

// copyTree copies every file under src to the same relative place under dst,
// possibly on another file system.
func copyTree(t *testing.T, src, dst vfs.Path) {
	t.Helper()
	ctx := t.Context()
	srcFS, dstFS := fsOf(t, src), fsOf(t, dst)
	src = src.MakeQualified(srcFS)
	n := 0
	err := vfs.Walk(ctx, srcFS, src, func(st vfs.FileStatus, err error) error {
		if err != nil || st.IsDir {
			return err
		}
		rel := st.Path.Path()[len(src.Path())+1:]
		_, err = vfs.Copy(ctx, dstFS, dst.Join(rel), srcFS, st.Path)
		n++
		return err
	})
	require.NoError(t, err)
	require.Positive(t, n)
}

// TestSavepointRelocation takes a savepoint on memory://, copies its directory to
// every backend, deletes the original, and restores from the copy: relative
// handles resolve against the directory the metadata is loaded from.
func TestSavepointRelocation(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		src := memoryBackend.base(t)
		job := cs.NewJobID()
		s, err := cs.NewFsCheckpointStorage(ctx, job, src.Join("chk"), src.Join("savepoints"), 16, 0)
		require.NoError(t, err)
		loc, err := s.InitializeLocationForSavepoint(ctx, 42, "")
		require.NoError(t, err)
		spDir := loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()
		want := [][]byte{pattern(10, 1), pattern(1000, 2), pattern(17, 3)}
		var hs []cs.StreamStateHandle
		for _, d := range want {
			hs = append(hs, writeState(t, loc, cs.Exclusive, d, 0))
		}
		require.Equal(t, cs.KindRelativeFile, cs.KindOf(hs[1]))
		m := sampleMetadata(job, 42, hs...)
		m.IsSavepoint = true
		_, err = cs.FinalizeCheckpoint(ctx, loc, m)
		require.NoError(t, err)

		dst := b.base(t).Join("moved", spDir.Name())
		copyTree(t, spDir, dst)
		require.NoError(t, fsOf(t, spDir).Delete(ctx, spDir, true))

		for _, pointer := range []string{dst.String(), dst.Join(cs.MetadataFileName).String()} {
			loaded, l, err := cs.LoadCheckpoint(ctx, pointer)
			require.NoError(t, err, pointer)
			require.True(t, loaded.IsSavepoint)
			require.Equal(t, dst.MakeQualified(fsOf(t, dst)), l.CheckpointDir())
			checkRestored(t, loaded, want)
			for _, h := range loaded.Handles() {
				if rh, ok := h.(*cs.RelativeFileStateHandle); ok {
					require.Equal(t, l.CheckpointDir(), rh.FilePath.Parent())
				}
			}
		}
	})
}

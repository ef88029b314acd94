package checkpointstorage_test

import (
	"errors"
	"io/fs"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

// TestDisposeOnFailureAfterLosingARace: several writers (storages of one
// job, as two coordinators would be) race for the same checkpoint ids, each
// writing its own state and finalizing at once. Exactly one wins each id; the
// losers dispose of their locations. Before they do, the winner writes its
// own bytes again at the name of one loser's state file. The winner's
// checkpoint still restores byte for byte, that file keeps the winner's
// bytes (and that loser's DisposeOnFailure says it stayed, with
// vfs.ErrChanged), and nothing else of the losers is left in it.
func TestDisposeOnFailureAfterLosingARace(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		base := b.base(t)
		const writers, rounds = 4, 3
		first, job := newFsStorage(t, base, 0, 0)
		storages := []*cs.FsCheckpointStorage{first}
		for range writers - 1 {
			s, err := cs.NewFsCheckpointStorage(ctx, job, base, first.CheckpointsDirectory().Parent().Parent(), 0, 0)
			require.NoError(t, err)
			storages = append(storages, s)
		}
		for id := int64(1); id <= rounds; id++ {
			var wg, raced sync.WaitGroup
			start, rewritten := make(chan struct{}), make(chan struct{})
			won := make([]bool, writers)
			errs, disposeErrs := make([]error, writers), make([]error, writers)
			states := make([]vfs.Path, writers)
			for w, s := range storages {
				wg.Add(1)
				raced.Add(1)
				go func() {
					defer wg.Done()
					lost := false
					defer func() {
						if !lost {
							raced.Done()
						}
					}()
					loc, err := s.InitializeLocationForCheckpoint(ctx, id)
					if err != nil {
						errs[w] = err
						return
					}
					var h cs.StreamStateHandle
					out, err := loc.CreateCheckpointStateOutputStream(ctx, cs.Exclusive)
					if err == nil {
						_, err = out.Write(pattern(200, byte(w)))
					}
					if err == nil {
						h, err = out.CloseAndGetHandle(ctx)
					}
					if err != nil {
						errs[w] = err
						return
					}
					states[w] = h.(*cs.RelativeFileStateHandle).FilePath
					<-start
					_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, id, h))
					if err == nil {
						won[w] = true
						return
					}
					if !errors.Is(err, fs.ErrExist) {
						errs[w] = err
					}
					lost = true
					raced.Done()
					<-rewritten
					disposeErrs[w] = loc.DisposeOnFailure(ctx)
				}()
			}
			close(start)
			raced.Wait()
			for _, err := range errs {
				require.NoError(t, err)
			}
			winner := -1
			for w, ok := range won {
				if ok {
					require.Equal(t, -1, winner, "one winner")
					winner = w
				}
			}
			require.NotEqual(t, -1, winner, "one winner")
			loser := (winner + 1) % writers
			rewrite := pattern(200, byte(winner)+100) // the size of the loser's
			require.NoError(t, vfs.WriteFile(ctx, fsOf(t, states[loser]), states[loser], rewrite, vfs.Overwrite))
			close(rewritten)
			wg.Wait()
			got, err := vfs.ReadFile(ctx, fsOf(t, states[loser]), states[loser])
			require.NoError(t, err, "round %d: a file the winner wrote again is not deleted by the loser", id)
			require.Equal(t, rewrite, got)
			for w, err := range disposeErrs {
				if w == loser {
					require.ErrorIs(t, err, vfs.ErrChanged, "the loser that finds its file written again says so")
					require.ErrorContains(t, err, states[loser].Name())
					continue
				}
				require.NoError(t, err)
			}
			dir := cs.CheckpointDir(first.CheckpointsDirectory(), id)
			m, _, err := cs.LoadCheckpoint(ctx, dir.String())
			require.NoError(t, err, "round %d: the winner's checkpoint survives the losers' DisposeOnFailure", id)
			checkRestored(t, m, [][]byte{pattern(200, byte(winner))})
			require.Len(t, fileNames(t, dir), 3, "the winner's _metadata, state and rewritten file; the losers' state is gone")
		}
	})
}

// TestDisposeOnFailureKeepsAMetadataWrittenAgain: a writer publishes its
// checkpoint; its _metadata is then replaced by another writer's (same
// size, other bytes) before the first disposes of its location. The other
// _metadata and the state stay, and DisposeOnFailure says so.
func TestDisposeOnFailureKeepsAMetadataWrittenAgain(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		s, job := newFsStorage(t, b.base(t), 0, 0)
		loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
		require.NoError(t, err)
		h := writeState(t, loc, cs.Exclusive, pattern(200, 1), 0)
		done, err := cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, 1, h))
		require.NoError(t, err)
		mp := done.(*cs.FsCompletedCheckpointStorageLocation).MetadataPath()
		fsys := fsOf(t, mp)
		mine, err := vfs.ReadFile(ctx, fsys, mp)
		require.NoError(t, err)
		theirs := append([]byte(nil), mine...)
		theirs[len(theirs)-1] ^= 0xff
		require.NoError(t, fsys.Delete(ctx, mp, false))
		require.NoError(t, vfs.WriteFile(ctx, fsys, mp, theirs, vfs.NoOverwrite))

		err = loc.DisposeOnFailure(ctx)
		require.ErrorIs(t, err, vfs.ErrChanged)
		got, rerr := vfs.ReadFile(ctx, fsys, mp)
		require.NoError(t, rerr, "another writer's _metadata is not deleted")
		require.Equal(t, theirs, got)
		require.Len(t, fileNames(t, mp.Parent()), 2, "the _metadata and the state it may name stay")
	})
}

package checkpointstorage_test

import (
	"errors"
	"io/fs"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
)

// TestDisposeOnFailureAfterLosingARace: several writers (storages of one
// job, as two coordinators would be) race for the same checkpoint ids, each
// writing its own state and finalizing at once. Exactly one wins each id; the
// losers dispose of their locations. The winner's checkpoint still restores
// byte for byte, and nothing of the losers is left in it.
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
			var wg sync.WaitGroup
			start := make(chan struct{})
			won := make([]bool, writers)
			errs := make([]error, writers)
			for w, s := range storages {
				wg.Add(1)
				go func() {
					defer wg.Done()
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
					<-start
					_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, id, h))
					if err == nil {
						won[w] = true
						return
					}
					if !errors.Is(err, fs.ErrExist) {
						errs[w] = err
					}
					errs[w] = errors.Join(errs[w], loc.DisposeOnFailure(ctx))
				}()
			}
			close(start)
			wg.Wait()
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
			dir := cs.CheckpointDir(first.CheckpointsDirectory(), id)
			m, _, err := cs.LoadCheckpoint(ctx, dir.String())
			require.NoError(t, err, "round %d: the winner's checkpoint survives the losers' DisposeOnFailure", id)
			checkRestored(t, m, [][]byte{pattern(200, byte(winner))})
			require.Len(t, fileNames(t, dir), 2, "the winner's _metadata and state; the losers' state is gone")
		}
	})
}

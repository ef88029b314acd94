package chaos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/vfskit/vfskit/vfs"
)

// RaceResult is what a rename race did.
type RaceResult struct {
	// Racers is the number of renames that raced.
	Racers int
	// Succeeded is the number of renames that returned success.
	Succeeded int
	// Moved is the number of sources that left their place: the destination
	// holds one of them (the winner's), the others are lost.
	Moved int
	// Lost is the number of sources that are gone and not at the destination.
	Lost int
	// Winner is the racer whose bytes the destination holds, -1 when none.
	Winner int
}

// DoubleWin reports whether more than one rename won (returned success or
// moved its source).
func (r RaceResult) DoubleWin() bool { return r.Succeeded > 1 || r.Moved > 1 }

// RenameRace writes n distinct files under dir through check, renames them all
// at once onto one destination under dir through race (the file system under
// test, possibly faulted), and then, through check (an unfaulted view of the
// same store), finds out who won and whether a source was lost: a racer whose
// rename failed must still have its source, byte for byte. It deletes dir at the
// end. An error means the race could not be set up or checked.
func RenameRace(ctx context.Context, race, check vfs.FileSystem, dir vfs.Path, n int) (RaceResult, error) {
	r := RaceResult{Racers: n, Winner: -1}
	dst := dir.Join("dst")
	src := func(w int) vfs.Path { return dir.Join(fmt.Sprintf("src-%d", w)) }
	data := func(w int) []byte { return bytes.Repeat([]byte{byte('a' + w%26)}, 300+w) }
	for w := range n {
		if err := vfs.WriteFile(ctx, check, src(w), data(w), vfs.NoOverwrite); err != nil {
			return r, err
		}
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = race.Rename(ctx, src(w), dst)
		}()
	}
	wg.Wait()
	got, err := vfs.ReadFile(ctx, check, dst)
	if err != nil && !isNotExist(err) {
		return r, err
	}
	for w := range n {
		if errs[w] == nil {
			r.Succeeded++
		}
		have, err := vfs.ReadFile(ctx, check, src(w))
		switch {
		case err == nil && bytes.Equal(have, data(w)):
			continue // kept its source
		case err != nil && !isNotExist(err):
			return r, err
		}
		r.Moved++
		if bytes.Equal(got, data(w)) {
			r.Winner = w
		} else {
			r.Lost++
		}
	}
	return r, check.Delete(ctx, dir, true)
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

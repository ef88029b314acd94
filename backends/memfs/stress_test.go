package memfs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

const (
	claimNames = 40 // names in shared/claims that workers race to create
	tokens     = 8  // files in shared/tokens, renamed around concurrently
	tokenNames = 12 // names the tokens move between
)

// TestConcurrentStress runs 8 goroutines doing 1,000 mixed operations each on one
// file system, then checks the final tree:
//   - every goroutine owns a directory where it creates, overwrites, lists,
//     renames and deletes, keeping a model: the tree must equal the model;
//   - all of them race NoOverwrite creates in shared/claims: every claim file
//     must hold the content of the one writer told it won, and no two writers
//     may both have won a name;
//   - all of them race renames among shared/tokens (never onto an existing
//     name): the set of token contents must be exactly the initial one, so no
//     rename lost or duplicated a file.
func TestConcurrentStress(t *testing.T) {
	const workers, opsPerWorker = 8, 1000
	ctx := context.Background()
	fsys := memfs.New()
	root := vfs.MustPath(fsys.URI().String())
	shared := root.Join("shared")
	var wantTokens []string
	for i := range tokens {
		content := fmt.Sprintf("token %02d", i)
		wantTokens = append(wantTokens, content)
		require.NoError(t, vfs.WriteFile(ctx, fsys, shared.Join("tokens", fmt.Sprintf("t%d", i)), []byte(content), vfs.NoOverwrite))
	}

	var wg sync.WaitGroup
	models := make([]map[string]string, workers)
	claims := make([]map[string]string, workers)
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			claims[w] = map[string]string{}
			models[w], errs[w] = stressWorker(ctx, fsys, root.Join(fmt.Sprintf("w%d", w)), shared, w, opsPerWorker, claims[w])
		}()
	}
	wg.Wait()

	for w := range workers {
		require.NoError(t, errs[w], "worker %d", w)
		got := map[string]string{}
		require.NoError(t, vfs.Walk(ctx, fsys, root.Join(fmt.Sprintf("w%d", w)), func(st vfs.FileStatus, err error) error {
			if err != nil || st.IsDir {
				return err
			}
			data, err := vfs.ReadFile(ctx, fsys, st.Path)
			got[st.Path.Path()] = string(data)
			return err
		}))
		assert.NotEmpty(t, models[w], "worker %d kept some files", w)
		assert.Equal(t, models[w], got, "worker %d's tree", w)
	}

	won := map[string]string{}
	for w := range workers {
		for name, content := range claims[w] {
			assert.NotContains(t, won, name, "two writers won claim %s", name)
			won[name] = content
		}
	}
	entries, err := fsys.List(ctx, shared.Join("claims"))
	require.NoError(t, err)
	assert.Len(t, entries, len(won), "every claim file has one winner")
	for _, e := range entries {
		data, err := vfs.ReadFile(ctx, fsys, e.Path)
		require.NoError(t, err)
		assert.Equal(t, won[e.Path.Path()], string(data), "claim %s holds its winner's content", e.Path)
	}

	entries, err = fsys.List(ctx, shared.Join("tokens"))
	require.NoError(t, err)
	var gotTokens []string
	for _, e := range entries {
		data, err := vfs.ReadFile(ctx, fsys, e.Path)
		require.NoError(t, err)
		gotTokens = append(gotTokens, string(data))
	}
	sort.Strings(gotTokens)
	assert.Equal(t, wantTokens, gotTokens, "renames neither lost nor duplicated a token")

	// No temporary file survives anywhere.
	visited := 0
	require.NoError(t, vfs.Walk(ctx, fsys, root, func(st vfs.FileStatus, err error) error {
		visited++
		assert.NotContains(t, st.Path.String(), ".vfskit-tmp-")
		return err
	}))
	assert.Greater(t, visited, tokens)
	raw, err := afero.ReadDir(fsys.Afero(), "/shared/claims")
	require.NoError(t, err)
	assert.Len(t, raw, len(won), "no temporary file left in shared/claims on the afero.Fs itself")
}

// stressWorker runs n random operations under dir (its own) and shared,
// records the claims it won in claims, and returns the model of dir: file path →
// content.
func stressWorker(ctx context.Context, fsys vfs.FileSystem, dir, shared vfs.Path, w, n int, claims map[string]string) (map[string]string, error) {
	rng := rand.New(rand.NewPCG(uint64(w), 42))
	model := map[string]string{}
	pick := func() (string, bool) {
		for p := range model { // map order is random enough
			return p, true
		}
		return "", false
	}
	for i := range n {
		content := fmt.Sprintf("w%d-op%d-complete", w, i)
		target := dir.Join(fmt.Sprintf("d%d", rng.IntN(4)), fmt.Sprintf("f%d", rng.IntN(20)))
		switch op := min(rng.IntN(12), 6); op {
		case 0, 1: // create
			err := vfs.WriteFile(ctx, fsys, target, []byte(content), vfs.NoOverwrite)
			_, exists := model[target.Path()]
			switch {
			case err == nil && !exists:
				model[target.Path()] = content
			case errors.Is(err, fs.ErrExist) && exists:
			default:
				return nil, fmt.Errorf("op %d create %s (exists %v): %w", i, target, exists, err)
			}
		case 2: // overwrite, written in pieces
			out, err := fsys.Create(ctx, target, vfs.Overwrite)
			if err != nil {
				return nil, fmt.Errorf("op %d overwrite %s: %w", i, target, err)
			}
			for j := 0; j < len(content); j += 5 {
				if _, err := out.Write([]byte(content[j:min(j+5, len(content))])); err != nil {
					return nil, err
				}
			}
			if err := out.Close(); err != nil {
				return nil, fmt.Errorf("op %d overwrite %s: %w", i, target, err)
			}
			model[target.Path()] = content
		case 3: // list
			entries, err := fsys.List(ctx, target.Parent())
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("op %d list: %w", i, err)
			}
			for _, e := range entries {
				if _, ok := model[e.Path.Path()]; !ok && !e.IsDir {
					return nil, fmt.Errorf("op %d list: unexpected %s", i, e.Path)
				}
			}
			// The shared directories, where others are writing and renaming.
			for _, d := range []string{"claims", "tokens"} {
				entries, err := fsys.List(ctx, shared.Join(d))
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("op %d list %s: %w", i, d, err)
				}
				for _, e := range entries {
					if strings.Contains(e.Path.String(), ".vfskit-tmp-") {
						return nil, fmt.Errorf("op %d list %s: temporary file %s listed", i, d, e.Path)
					}
				}
			}
		case 4: // rename a file
			src, ok := pick()
			if !ok {
				continue
			}
			_, exists := model[target.Path()]
			err := fsys.Rename(ctx, vfs.MustPath(src).MakeQualified(fsys), target)
			switch {
			case src == target.Path() && errors.Is(err, fs.ErrExist):
			case err == nil && !exists:
				model[target.Path()] = model[src]
				delete(model, src)
			case errors.Is(err, fs.ErrExist) && exists:
			default:
				return nil, fmt.Errorf("op %d rename %s → %s: %w", i, src, target, err)
			}
		case 5: // delete a file, or a whole subdirectory now and then
			if rng.IntN(10) == 0 {
				sub := target.Parent()
				if err := fsys.Delete(ctx, sub, true); err != nil {
					return nil, fmt.Errorf("op %d delete %s: %w", i, sub, err)
				}
				for p := range model {
					if vfs.MustPath(p).Parent().Path() == sub.Path() {
						delete(model, p)
					}
				}
				continue
			}
			if err := fsys.Delete(ctx, target, false); err != nil {
				return nil, fmt.Errorf("op %d delete %s: %w", i, target, err)
			}
			delete(model, target.Path())
		case 6: // (half the time) shared directories: racing NoOverwrite claims and token renames
			if rng.IntN(2) == 0 {
				claim := shared.Join("claims", fmt.Sprintf("c%d", rng.IntN(claimNames)))
				err := writeInTwo(ctx, fsys, claim, content)
				switch {
				case err == nil:
					claims[claim.Path()] = content
				case !errors.Is(err, fs.ErrExist):
					return nil, fmt.Errorf("op %d claim %s: %w", i, claim, err)
				}
				continue
			}
			src := shared.Join("tokens", fmt.Sprintf("t%d", rng.IntN(tokenNames)))
			dst := shared.Join("tokens", fmt.Sprintf("t%d", rng.IntN(tokenNames)))
			err := fsys.Rename(ctx, src, dst)
			if err != nil && !errors.Is(err, fs.ErrExist) && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("op %d token rename %s → %s: %w", i, src, dst, err)
			}
		}
	}
	return model, nil
}

// writeInTwo writes content to a new file p in two halves, yielding in between so
// that racing writers of p overlap.
func writeInTwo(ctx context.Context, fsys vfs.FileSystem, p vfs.Path, content string) error {
	out, err := fsys.Create(ctx, p, vfs.NoOverwrite)
	if err != nil {
		return err
	}
	half := len(content) / 2
	if _, err := out.Write([]byte(content[:half])); err != nil {
		vfs.Discard(out, nil)
		return err
	}
	runtime.Gosched()
	if _, err := out.Write([]byte(content[half:])); err != nil {
		vfs.Discard(out, nil)
		return err
	}
	return out.Close()
}

// TestPublishRacesDirectoryChanges writes files while another goroutine moves,
// deletes and recreates their directories (under -race): a Close succeeds or
// fails with fs.ErrNotExist (its directory went away), and every file that ends
// up anywhere holds one writer's complete content under that writer's name.
// (Whether any file is left at the end depends on which goroutine finishes
// first: the mover deletes directories too. So the test counts good Closes.)
func TestPublishRacesDirectoryChanges(t *testing.T) {
	const writers, perWriter = 4, 300
	ctx := context.Background()
	fsys := memfs.New()
	root := vfs.MustPath(fsys.URI().String())
	var published atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, writers+1)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				p := root.Join(fmt.Sprintf("d%d", i%3), fmt.Sprintf("w%d-%d", w, i))
				err := writeInTwo(ctx, fsys, p, fmt.Sprintf("writer %d file %d complete", w, i))
				if err == nil {
					published.Add(1)
				}
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs[w] = fmt.Errorf("%s: %w", p, err)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // moves directories away and back, deletes and recreates them
		defer wg.Done()
		for i := range 400 {
			d := root.Join(fmt.Sprintf("d%d", i%3))
			var err error
			switch i % 4 {
			case 0, 1:
				moved := root.Join("moved", fmt.Sprintf("m%d", i))
				if err = fsys.Rename(ctx, d, moved); err == nil {
					err = fsys.Rename(ctx, moved, d)
				}
			case 2:
				err = fsys.Delete(ctx, d, true)
			case 3:
				err = fsys.Mkdirs(ctx, d)
			}
			if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrExist) {
				errs[writers] = fmt.Errorf("op %d on %s: %w", i, d, err)
				return
			}
		}
	}()
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, vfs.Walk(ctx, fsys, root, func(st vfs.FileStatus, err error) error {
		if err != nil || st.IsDir {
			return err
		}
		data, err := vfs.ReadFile(ctx, fsys, st.Path)
		require.NoError(t, err)
		var w, i int
		_, serr := fmt.Sscanf(st.Path.Name(), "w%d-%d", &w, &i)
		require.NoError(t, serr, "unexpected file %s", st.Path)
		assert.Equal(t, fmt.Sprintf("writer %d file %d complete", w, i), string(data), "%s", st.Path)
		return nil
	}))
	assert.Positive(t, published.Load(), "some Closes succeeded")
}

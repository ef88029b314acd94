package memfs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// TestConcurrentStress runs 8 goroutines doing 1,000 mixed operations each on one
// file system. Every goroutine owns a directory and keeps a model of it; all of
// them also hammer a shared directory. At the end every private tree must equal
// its model exactly, and the shared directory must hold only complete files.
func TestConcurrentStress(t *testing.T) {
	const workers, opsPerWorker = 8, 1000
	ctx := context.Background()
	fsys := memfs.New()
	root := vfs.MustPath(fsys.URI().String())
	shared := root.Join("shared")

	var wg sync.WaitGroup
	models := make([]map[string]string, workers)
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			models[w], errs[w] = stressWorker(ctx, fsys, root.Join(fmt.Sprintf("w%d", w)), shared, w, opsPerWorker)
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
	entries, err := fsys.List(ctx, shared)
	require.NoError(t, err)
	for _, e := range entries {
		data, err := vfs.ReadFile(ctx, fsys, e.Path)
		require.NoError(t, err)
		assert.Regexp(t, `^w\d+-op\d+-complete$`, string(data), "shared file %s is complete", e.Path)
	}
	// No temporary file survives anywhere.
	names := 0
	require.NoError(t, vfs.Walk(ctx, fsys, root, func(st vfs.FileStatus, err error) error {
		names++
		assert.NotContains(t, st.Path.String(), ".vfskit-tmp-")
		return err
	}))
	assert.Positive(t, names)
}

// stressWorker runs n random operations under dir (its own) and shared, and
// returns the model of dir: file path → content.
func stressWorker(ctx context.Context, fsys vfs.FileSystem, dir, shared vfs.Path, w, n int) (map[string]string, error) {
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
		switch op := rng.IntN(7); op {
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
		case 6: // the shared directory: racing creates, renames and deletes
			sp := shared.Join(fmt.Sprintf("s%d", rng.IntN(8)))
			switch rng.IntN(3) {
			case 0:
				err := vfs.WriteFile(ctx, fsys, sp, []byte(content), vfs.NoOverwrite)
				if err != nil && !errors.Is(err, fs.ErrExist) {
					return nil, fmt.Errorf("op %d shared create: %w", i, err)
				}
			case 1:
				err := fsys.Rename(ctx, sp, shared.Join(fmt.Sprintf("s%d", rng.IntN(8))))
				if err != nil && !errors.Is(err, fs.ErrExist) && !errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("op %d shared rename: %w", i, err)
				}
			default:
				if err := fsys.Delete(ctx, sp, false); err != nil {
					return nil, fmt.Errorf("op %d shared delete: %w", i, err)
				}
			}
		}
	}
	return model, nil
}

package checkpointstorage_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestDiscardRidesOutALostDeleteAnswer: on SeaweedFS, which enforces a
// DeleteObject's If-Match, the answer to the first conditional delete of every
// file of chk-1 (its _metadata first) is lost. The SDK sends the delete again;
// the object is gone by then (the first attempt deleted it), so the server
// refuses the condition. DisposeStorageLocation and DiscardCheckpoint must
// count such a file as deleted, not as changed: the whole checkpoint goes,
// without an error, and chk-2 still restores. (A _metadata really rewritten
// meanwhile still keeps the checkpoint: TestDiscardKeepsAMetadataChangedAfterItWasRead.)
func TestDiscardRidesOutALostDeleteAnswer(t *testing.T) {
	for _, c := range []struct {
		name   string
		remove func(ctx context.Context, chk vfs.Path, reg *vfs.Registry) error
	}{
		{"DisposeStorageLocation", func(ctx context.Context, chk vfs.Path, reg *vfs.Registry) error {
			loc, err := cs.ResolveCheckpointPointer(ctx, chk.String(), cs.WithRegistry(reg))
			require.NoError(t, err)
			return loc.DisposeStorageLocation(ctx)
		}},
		{"DiscardCheckpoint", func(ctx context.Context, chk vfs.Path, reg *vfs.Registry) error {
			_, err := cs.DiscardCheckpoint(ctx, chk, cs.WithRegistry(reg))
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			base := seaweedBackend.base(t)
			job, _ := vfskitJob(t, base)
			chk1 := job.Join("chk-1")
			before := snapshot(t, base)

			reg, p, lost := loseFirstDeleteAnswers(t, base, nil)

			require.NoError(t, c.remove(ctx, chk1, reg), "every delete was done; only its answer was lost")
			require.NotEmpty(t, *lost)
			assert.True(t, strings.HasSuffix((*lost)[0], "/chk-1/"+cs.MetadataFileName), "the _metadata's answer was lost first: %v", *lost)
			assert.Equal(t, len(*lost), p.Counts().Dropped)

			want := map[string]string{}
			for k, v := range before {
				if !strings.HasPrefix(k, chk1.String()+"/") {
					want[k] = v
				}
			}
			assert.Equal(t, want, snapshot(t, base), "all of chk-1 is gone, nothing else changed")
			_, _, err := cs.LoadCheckpoint(ctx, job.Join("chk-2").String())
			require.NoError(t, err, "the retained checkpoint restores")
		})
	}
}

// TestDiscardKeepsAMetadataWrittenAfterALostDelete: the delete of chk-1's
// _metadata is done but its answer is lost, and another writer writes a new
// _metadata there before the SDK sends the delete again. The retry meets
// that new version, not an empty key: the checkpoint is kept whole (nothing
// else of it is deleted) and the new _metadata stays byte for byte.
func TestDiscardKeepsAMetadataWrittenAfterALostDelete(t *testing.T) {
	ctx := t.Context()
	base := seaweedBackend.base(t)
	job, _ := vfskitJob(t, base)
	chk1 := job.Join("chk-1")
	mp := chk1.Join(cs.MetadataFileName)
	direct := fsOf(t, job)
	other, err := vfs.ReadFile(ctx, direct, job.Join("chk-2", cs.MetadataFileName))
	require.NoError(t, err)
	before := snapshot(t, base)
	var mu sync.Mutex // the hook runs in the proxy's goroutine
	var hookErr error
	hooked := false
	reg, p, _ := loseFirstDeleteAnswers(t, base, func(r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chk-1/"+cs.MetadataFileName) {
			err := vfs.WriteFile(context.WithoutCancel(ctx), direct, mp, other, vfs.NoOverwrite)
			mu.Lock()
			hooked, hookErr = true, err
			mu.Unlock()
		}
	})

	r, err := cs.DiscardCheckpoint(ctx, chk1, cs.WithRegistry(reg))
	mu.Lock()
	defer mu.Unlock()
	require.True(t, hooked, "the _metadata was written again between the delete and its retry")
	require.NoError(t, hookErr)
	require.ErrorIs(t, err, vfs.ErrChanged)
	assert.False(t, r.Removed())
	assert.Contains(t, r.Kept, cs.MetadataFileName+" changed")
	assert.Equal(t, 1, p.Counts().Dropped)
	before[mp.String()] = string(other)
	assert.Equal(t, before, snapshot(t, base), "only the _metadata changed, to the one written again")
}

// loseFirstDeleteAnswers returns a registry whose scheme of base (on the
// shared SeaweedFS) goes through a fault proxy that forwards the first
// DeleteObject of each key and loses its answer (the SDK sends it again),
// calling after, when set, once the server has deleted and before the answer
// is lost; lost lists the paths whose answer was lost.
func loseFirstDeleteAnswers(t *testing.T, base vfs.Path, after func(*http.Request)) (reg *vfs.Registry, p *faultproxy.Proxy, lost *[]string) {
	t.Helper()
	srv := s3test.SeaweedFS(t)
	p, err := faultproxy.Start(srv.Endpoint)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	var mu sync.Mutex
	seen := map[string]bool{}
	lost = new([]string)
	p.Set(faultproxy.Faults{Drop: 1, After: after, Match: func(r *http.Request) bool {
		if s3test.Operation(r) != s3test.OpDeleteObject || strings.Contains(r.URL.Path, ".vfskit-probe-") {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		if seen[r.URL.Path] {
			return false
		}
		seen[r.URL.Path] = true
		*lost = append(*lost, r.URL.Path)
		return true
	}})
	o := s3Options(srv)
	o.Endpoint = p.URL()
	reg = vfs.NewRegistry()
	require.NoError(t, reg.Register(base.Scheme(), s3.Factory(o)))
	return reg, p, lost
}

package checkpointstorage_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/s3"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/internal/chaos"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// crashRegistry returns a registry whose file system for base's scheme dies
// after allow delete requests: crashAfterDeletes over the real one on memory:// and
// file://, the s3 backend over a connection that fails every request after
// allow delete requests (DeleteObject, DeleteObjects) on SeaweedFS.
func crashRegistry(t *testing.T, b backend, base vfs.Path, allow int) *vfs.Registry {
	t.Helper()
	reg := vfs.NewRegistry()
	if b.name == seaweedBackend.name {
		srv := s3test.SeaweedFS(t)
		deletes, dead := 0, false
		breaker := s3test.NewBreaker(nil, func(op string, _ int) bool {
			if !dead && (op == s3test.OpDeleteObject || op == s3test.OpDeleteObjects) {
				dead = deletes == allow
				deletes++
			}
			return dead
		})
		o := s3Options(srv)
		o.HTTPClient, o.MaxAttempts = breaker.HTTPClient(), 1
		require.NoError(t, reg.Register(base.Scheme(), s3.Factory(o)))
		return reg
	}
	require.NoError(t, reg.Register(base.Scheme(), func(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
		inner, err := vfs.Get(ctx, u.String())
		if err != nil {
			return nil, err
		}
		return crashAfterDeletes(inner, allow), nil
	}))
	return reg
}

// crashAfterDeletes returns a chaos.FaultFS over inner that dies at delete
// request allow+1 and stays dead: every operation fails from then on. It
// sends a recursive Delete as one request per entry, files first in listing
// order, then the directories bottom-up (as an object store deletes key by
// key, and as RemoveAll unlinks), so the crash can land in the middle of one.
func crashAfterDeletes(inner vfs.FileSystem, allow int) *chaos.FaultFS {
	f := chaos.NewFaultFS(inner)
	var mu sync.Mutex
	deletes := 0
	f.OnOp = func(op string) {
		if op != "delete" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if deletes == allow {
			f.CrashAfter(0) // this request is the first that fails
		}
		deletes++
	}
	return f
}

// crashedCheckpoint is a checkpoint written for a crash test, with the bytes
// each of its state handles must restore.
type crashedCheckpoint struct {
	dir   vfs.Path
	state [][]byte
}

// writeCrashCheckpoint writes checkpoint id of s with n exclusive state files
// named so that they list before _metadata ("0000", ...), two files the storage
// names itself, and one inline state.
func writeCrashCheckpoint(t *testing.T, s *cs.FsCheckpointStorage, id int64, n int) crashedCheckpoint {
	t.Helper()
	ctx := t.Context()
	loc, err := s.InitializeLocationForCheckpoint(ctx, id)
	require.NoError(t, err)
	dir := loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()
	fsys := fsOf(t, dir)
	c := crashedCheckpoint{dir: dir, state: crashState(id, n)}
	handles := make([]cs.StreamStateHandle, n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 16 {
				name := fmt.Sprintf("%04d", i)
				handles[i] = cs.NewRelativeFileStateHandle(dir.Join(name), name, int64(len(c.state[i])))
				errs[i] = vfs.WriteFile(ctx, fsys, dir.Join(name), c.state[i], vfs.NoOverwrite)
			}
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	c.state = crashState(id, n)
	for _, data := range c.state[n : n+2] {
		handles = append(handles, writeState(t, loc, cs.Exclusive, data, 0))
	}
	handles = append(handles, cs.NewByteStreamStateHandle("inline", c.state[n+2]))
	_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(s.JobID(), id, handles...))
	require.NoError(t, err)
	return c
}

// crashState is the state writeCrashCheckpoint writes for checkpoint id with n
// named files: n small files, two larger ones, one inline.
func crashState(id int64, n int) [][]byte {
	var state [][]byte
	for i := range n {
		state = append(state, []byte(fmt.Sprintf("chk-%d state %d", id, i)))
	}
	for i := range 2 {
		state = append(state, pattern(300, byte(id)+byte(i)))
	}
	return append(state, []byte("inline"))
}

// requireCompletedRestore asserts that every checkpoint listed as completed in
// jobDir restores byte for byte, reading through the real file system.
func requireCompletedRestore(t *testing.T, jobDir vfs.Path, written map[int64]crashedCheckpoint) {
	t.Helper()
	infos, err := cs.ListCompletedCheckpoints(t.Context(), jobDir)
	require.NoError(t, err)
	for _, info := range infos {
		m, _, err := cs.LoadCheckpoint(t.Context(), info.Dir.String())
		require.NoError(t, err, "chk-%d is listed as completed", info.CheckpointID)
		hs := m.Handles()
		want := written[info.CheckpointID].state
		require.Len(t, hs, len(want))
		for i, mh := range hs {
			h, ok := mh.(cs.StreamStateHandle)
			require.True(t, ok, "%T", mh)
			in, err := h.OpenInputStream(t.Context())
			require.NoError(t, err, "chk-%d is listed as completed, its state %v must open", info.CheckpointID, h)
			got, err := io.ReadAll(in)
			_ = in.Close()
			require.NoError(t, err, "chk-%d is listed as completed, its state %v must read", info.CheckpointID, h)
			require.Equal(t, want[i], got, "chk-%d state %d", info.CheckpointID, i)
		}
	}
}

// TestDisposeCrashLeavesNoBrokenCheckpoint kills the store after each number of
// delete requests while a checkpoint is disposed of (DisposeStorageLocation,
// DisposeOnFailure of a finalized location, DiscardCheckpoint, and
// RetainCheckpoints), then checks, through the real store, that every
// checkpoint still listed as completed restores byte for byte: _metadata goes
// first. On S3 the checkpoint has more files than one DeleteObjects batch takes,
// so a recursive delete is several requests, and the store dies after the
// first.
func TestDisposeCrashLeavesNoBrokenCheckpoint(t *testing.T) {
	ways := map[string]func(ctx context.Context, s *cs.FsCheckpointStorage, c crashedCheckpoint, reg *vfs.Registry) error{
		"DisposeStorageLocation": func(ctx context.Context, _ *cs.FsCheckpointStorage, c crashedCheckpoint, reg *vfs.Registry) error {
			loc, err := cs.ResolveCheckpointPointer(ctx, c.dir.String(), cs.WithRegistry(reg))
			if err != nil {
				return err
			}
			return loc.DisposeStorageLocation(ctx)
		},
		"DisposeOnFailure": func(ctx context.Context, s *cs.FsCheckpointStorage, c crashedCheckpoint, reg *vfs.Registry) error {
			crashing, err := cs.NewFsCheckpointStorage(ctx, s.JobID(), s.CheckpointsDirectory().Parent(), vfs.Path{}, 100, 0, cs.WithRegistry(reg))
			if err != nil {
				return err
			}
			loc, err := crashing.InitializeLocationForCheckpoint(ctx, 1)
			if err != nil {
				return err
			}
			return loc.DisposeOnFailure(ctx)
		},
		"DiscardCheckpoint": func(ctx context.Context, _ *cs.FsCheckpointStorage, c crashedCheckpoint, reg *vfs.Registry) error {
			_, err := cs.DiscardCheckpoint(ctx, c.dir, cs.WithRegistry(reg))
			return err
		},
		"RetainCheckpoints": func(ctx context.Context, s *cs.FsCheckpointStorage, _ crashedCheckpoint, reg *vfs.Registry) error {
			_, err := cs.RetainCheckpoints(ctx, s.CheckpointsDirectory(), 1, cs.WithRegistry(reg))
			return err
		},
	}
	for _, b := range []backend{memoryBackend, fileBackend, seaweedBackend} {
		t.Run(b.name, func(t *testing.T) {
			n, allows := 3, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}
			if b.objectStore {
				// 1,001 files take seconds to write: one crash point (after the
				// first DeleteObjects), for DisposeStorageLocation (DisposeOnFailure
				// deletes in the same order, through the same code).
				n, allows = blobfs.MaxDeleteBatch+1, []int{1}
			}
			for name, dispose := range ways {
				if b.objectStore && name != "DisposeStorageLocation" {
					continue
				}
				t.Run(name, func(t *testing.T) {
					for _, allow := range allows {
						base := b.base(t)
						s, _ := newFsStorage(t, base, 100, 0)
						written := map[int64]crashedCheckpoint{1: writeCrashCheckpoint(t, s, 1, n)}
						if name == "RetainCheckpoints" {
							written[2] = writeCrashCheckpoint(t, s, 2, 1)
						}
						err := dispose(t.Context(), s, written[1], crashRegistry(t, b, base, allow))
						if err != nil {
							require.NotErrorIs(t, err, fs.ErrInvalid, "allow %d", allow)
						}
						t.Logf("%d delete requests allowed: %v", allow, err)
						requireCompletedRestore(t, s.CheckpointsDirectory(), written)
					}
				})
			}
		})
	}
}

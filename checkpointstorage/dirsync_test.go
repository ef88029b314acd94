package checkpointstorage_test

import (
	"context"
	"io/fs"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/backends/memfs"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// syncLog is a vfs.DirSyncer over memory:// that logs, in order, the files it
// creates (with Create or CreateUnsynced), the ones it publishes (Close) and
// the directories it syncs. SyncDir fails with failSync when that is set.
type syncLog struct {
	layer.Base
	inner    *aferofs.FileSystem
	mu       sync.Mutex
	log      []string
	failSync error
}

var _ vfs.DirSyncer = (*syncLog)(nil)

func (l *syncLog) add(op string, p vfs.Path) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log = append(l.log, op+" "+p.Name())
}

func (l *syncLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.log
	l.log = nil
	return s
}

func (l *syncLog) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	l.add("Create", p)
	out, err := l.inner.Create(ctx, p, mode)
	return l.wrap(out, p), err
}

func (l *syncLog) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	l.add("CreateUnsynced", p)
	out, err := l.inner.CreateUnsynced(ctx, p, mode)
	return l.wrap(out, p), err
}

func (l *syncLog) SyncDir(ctx context.Context, dir vfs.Path) error {
	if l.failSync != nil {
		return vfs.NewPathError("syncdir", dir, l.failSync)
	}
	l.add("SyncDir", dir)
	return l.inner.SyncDir(ctx, dir)
}

func (l *syncLog) wrap(out vfs.OutputStream, p vfs.Path) vfs.OutputStream {
	if out == nil {
		return nil
	}
	return &loggedStream{Output: layer.Output{OutputStream: out}, log: l, path: p}
}

type loggedStream struct {
	layer.Output
	log  *syncLog
	path vfs.Path
}

func (s *loggedStream) Close() error {
	err := s.OutputStream.Close()
	if err == nil {
		s.log.add("Close", s.path)
	}
	return err
}

func newSyncLogStorage(t *testing.T) (*cs.FsCheckpointStorage, *syncLog) {
	t.Helper()
	inner := memfs.New()
	l := &syncLog{Base: layer.Base{Inner: inner}, inner: inner}
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register(memfs.Scheme, func(context.Context, *url.URL) (vfs.FileSystem, error) { return l, nil }))
	base := vfs.MustPath(inner.URI().JoinPath("checkpoints").String())
	s, err := cs.NewFsCheckpointStorage(t.Context(), cs.NewJobID(), base, base.Join("sp"), 100, 0, cs.WithRegistry(reg))
	require.NoError(t, err)
	return s, l
}

// TestStateFilesSyncedOncePerCheckpoint: on a vfs.DirSyncer, the state files of
// a checkpoint (exclusive, shared, task-owned) skip the directory fsync at
// Close, and CloseAndFinalizeCheckpoint syncs their three directories before
// it publishes _metadata, so the checkpoint is durable as a whole.
func TestStateFilesSyncedOncePerCheckpoint(t *testing.T) {
	ctx := t.Context()
	s, l := newSyncLogStorage(t)
	loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
	require.NoError(t, err)
	f, err := s.ResolveCheckpointStorageLocation(ctx, 1, loc.LocationReference())
	require.NoError(t, err)
	l.take()

	hs := []cs.StreamStateHandle{
		writeState(t, f, cs.Exclusive, pattern(500, 1), 0),
		writeState(t, f, cs.Shared, pattern(500, 2), 0),
		writeState(t, f, cs.Exclusive, pattern(50, 3), 0), // inline: no file
	}
	task, err := s.CreateTaskOwnedStateStream(ctx)
	require.NoError(t, err)
	writeChunks(t, task, pattern(500, 4), 0)
	_, err = task.CloseAndGetHandle(ctx)
	require.NoError(t, err)
	ops := l.take()
	require.Len(t, ops, 6, "three state files created and published: %v", ops)
	for i, op := range ops {
		want := []string{"CreateUnsynced", "Close", "CreateUnsynced", "Close", "CreateUnsynced", "Close"}[i]
		assert.Regexp(t, "^"+want+" ", op, "state files are created unsynced")
	}

	_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(s.JobID(), 1, hs...))
	require.NoError(t, err)
	assert.Equal(t, []string{"Create _metadata", "SyncDir chk-1", "SyncDir shared", "SyncDir taskowned", "Close _metadata"},
		l.take(), "the state directories are synced once, before the metadata is published")
	for _, h := range hs {
		assert.NotEmpty(t, readHandle(t, h))
	}
}

// TestMetadataNotPublishedWhenStateSyncFails: when the state directories
// cannot be synced, no _metadata is published and the error says why.
func TestMetadataNotPublishedWhenStateSyncFails(t *testing.T) {
	ctx := t.Context()
	s, l := newSyncLogStorage(t)
	loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
	require.NoError(t, err)
	h := writeState(t, loc, cs.Exclusive, pattern(500, 1), 0)
	l.failSync = fs.ErrPermission
	_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(s.JobID(), 1, h))
	require.ErrorIs(t, err, fs.ErrPermission)
	assert.Contains(t, err.Error(), "durable")
	fsl := loc.(*cs.FsCheckpointStorageLocation)
	_, err = l.inner.Stat(ctx, fsl.MetadataPath())
	assert.ErrorIs(t, err, fs.ErrNotExist, "no metadata published")
}

// TestStandaloneStateStreamSyncs: a state stream made outside a checkpoint
// location (NewFsCheckpointStateOutputStream) has no finalization to sync its
// directory, so it uses Create, durable at Close.
func TestStandaloneStateStreamSyncs(t *testing.T) {
	ctx := t.Context()
	_, l := newSyncLogStorage(t)
	dir := vfs.MustPath(l.inner.URI().JoinPath("standalone").String())
	out, err := cs.NewFsCheckpointStateOutputStream(ctx, l, dir, 0, 0, false)
	require.NoError(t, err)
	writeChunks(t, out, pattern(100, 1), 0)
	_, err = out.CloseAndGetHandle(ctx)
	require.NoError(t, err)
	ops := l.take()
	require.Len(t, ops, 2)
	assert.Regexp(t, "^Create ", ops[0])
}

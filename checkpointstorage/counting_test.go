package checkpointstorage_test

import (
	"context"
	"io/fs"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// countingFS wraps a file system, counts the operations made on it and the
// writes and aborts of its streams (a Create with Overwrite counts as
// "CreateOverwrite" too), can fail the first Creates with fs.ErrExist (a name
// collision) and the Mkdirs that failMkdirs picks with fs.ErrPermission.
type countingFS struct {
	layer.Base
	mu          sync.Mutex
	ops         map[string]int
	failCreates int
	failMkdirs  func(p vfs.Path) bool
}

// newCountingFS returns a countingFS over inner.
func newCountingFS(inner vfs.FileSystem) *countingFS {
	return &countingFS{Base: layer.Base{Inner: inner}, ops: map[string]int{}}
}

func (c *countingFS) count(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ops[op]++
}

func (c *countingFS) get(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ops[op]
}

func (c *countingFS) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ops = map[string]int{}
}

func (c *countingFS) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	c.count("Stat")
	return c.Base.Stat(ctx, p)
}

func (c *countingFS) List(ctx context.Context, p vfs.Path) ([]vfs.FileStatus, error) {
	c.count("List")
	return c.Base.List(ctx, p)
}

func (c *countingFS) Mkdirs(ctx context.Context, p vfs.Path) error {
	c.count("Mkdirs")
	c.mu.Lock()
	fail := c.failMkdirs != nil && c.failMkdirs(p)
	c.mu.Unlock()
	if fail {
		return vfs.NewPathError("mkdir", p, fs.ErrPermission)
	}
	return c.Base.Mkdirs(ctx, p)
}

func (c *countingFS) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	c.count("Delete")
	return c.Base.Delete(ctx, p, recursive)
}

func (c *countingFS) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	c.count("Open")
	return c.Base.Open(ctx, p)
}

// OpenBeneath counts as an Open.
func (c *countingFS) OpenBeneath(ctx context.Context, dir vfs.Path, rel string) (vfs.InputStream, error) {
	if !layer.CanOpenBeneath(c.Inner) {
		return c.Base.OpenBeneath(ctx, dir, rel)
	}
	c.count("Open")
	return c.Base.OpenBeneath(ctx, dir, rel)
}

func (c *countingFS) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return c.create(ctx, p, mode, c.Base.Create)
}

// CreateUnsynced counts as a Create: the tests count the files created.
func (c *countingFS) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return c.create(ctx, p, mode, c.Base.CreateUnsynced)
}

func (c *countingFS) create(ctx context.Context, p vfs.Path, mode vfs.WriteMode,
	below func(context.Context, vfs.Path, vfs.WriteMode) (vfs.OutputStream, error)) (vfs.OutputStream, error) {
	c.count("Create")
	if mode != vfs.NoOverwrite {
		c.count("CreateOverwrite")
	}
	c.mu.Lock()
	fail := c.failCreates > 0
	if fail {
		c.failCreates--
	}
	c.mu.Unlock()
	if fail {
		return nil, vfs.NewPathError("create", p, fs.ErrExist)
	}
	out, err := below(ctx, p, mode)
	if err != nil {
		return nil, err
	}
	return &countingStream{Output: layer.Output{OutputStream: out}, fs: c}, nil
}

// The fast paths count under their own names, so a test that allows only
// some operations sees them too.

func (c *countingFS) ReadFile(ctx context.Context, p vfs.Path) ([]byte, error) {
	c.count("ReadFile")
	return c.Base.ReadFile(ctx, p)
}

func (c *countingFS) WriteFile(ctx context.Context, p vfs.Path, data []byte, mode vfs.WriteMode) error {
	c.count("WriteFile")
	return c.Base.WriteFile(ctx, p, data, mode)
}

func (c *countingFS) CopyFile(ctx context.Context, dst, src vfs.Path, mode vfs.WriteMode) (int64, error) {
	c.count("CopyFile")
	return c.Base.CopyFile(ctx, dst, src, mode)
}

type countingStream struct {
	layer.Output
	fs *countingFS
}

func (s *countingStream) Write(p []byte) (int, error) {
	s.fs.count("Write")
	return s.OutputStream.Write(p)
}

func (s *countingStream) Abort() error {
	s.fs.count("Abort")
	return s.Output.Abort()
}

// newCountingStorage returns an FsCheckpointStorage over a counting memory file
// system reached through a private registry.
func newCountingStorage(t *testing.T, threshold, writeBuffer int) (*cs.FsCheckpointStorage, *countingFS) {
	t.Helper()
	inner := memfs.New()
	c := newCountingFS(inner)
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register(memfs.Scheme, func(context.Context, *url.URL) (vfs.FileSystem, error) { return c, nil }))
	base := vfs.MustPath(inner.URI().JoinPath("checkpoints").String())
	s, err := cs.NewFsCheckpointStorage(t.Context(), cs.NewJobID(), base, base.Join("sp"), threshold, writeBuffer, cs.WithRegistry(reg))
	require.NoError(t, err)
	require.Empty(t, c.ops, "creating the storage makes no request")
	return s, c
}

// TestNoPerStreamMetadataRequests checks Flink's rule: writing state costs no
// HEAD (Stat), LIST or mkdir request, only the file uploads themselves.
func TestNoPerStreamMetadataRequests(t *testing.T) {
	ctx := t.Context()
	s, c := newCountingStorage(t, 100, 0)
	loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, 1, c.get("Mkdirs"), "one mkdir per checkpoint, by the coordinator")
	c.reset()

	f, err := s.ResolveCheckpointStorageLocation(ctx, 1, loc.LocationReference())
	require.NoError(t, err)
	var hs []cs.StreamStateHandle
	for i := range 10 {
		hs = append(hs, writeState(t, f, cs.Exclusive, pattern(50, byte(i)), 0))  // inline
		hs = append(hs, writeState(t, f, cs.Exclusive, pattern(500, byte(i)), 7)) // file
		hs = append(hs, writeState(t, f, cs.Shared, pattern(500, byte(i)), 0))    // shared file
	}
	task, err := s.CreateTaskOwnedStateStream(ctx)
	require.NoError(t, err)
	writeChunks(t, task, pattern(500, 1), 0)
	_, err = task.CloseAndGetHandle(ctx)
	require.NoError(t, err)
	require.Equal(t, 21, c.get("Create"), "one upload per file, none for inline state")
	for op := range c.ops {
		require.Contains(t, []string{"Create", "Write"}, op, "no Stat, List, Mkdirs or Delete per stream")
	}

	c.reset()
	_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(s.JobID(), 1, hs...))
	require.NoError(t, err)
	require.Equal(t, map[string]int{"Create": 1, "Write": 1}, c.ops, "the metadata is one upload")
}

func TestStateFileNameAttempts(t *testing.T) {
	ctx := t.Context()
	s, c := newCountingStorage(t, 0, 0)
	loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
	require.NoError(t, err)

	c.reset()
	c.failCreates = 9
	h := writeState(t, loc, cs.Exclusive, []byte("data"), 0)
	require.Equal(t, 10, c.get("Create"), "nine collisions, then a fresh name")
	require.Equal(t, []byte("data"), readHandle(t, h))

	c.reset()
	c.failCreates = 10
	out, err := loc.CreateCheckpointStateOutputStream(ctx, cs.Exclusive)
	require.NoError(t, err)
	_, err = out.Write([]byte("data"))
	require.ErrorIs(t, err, fs.ErrExist)
	require.ErrorContains(t, err, "Could not open output stream for state backend")
	require.Equal(t, 10, c.get("Create"), "at most 10 names")
	_, err = out.CloseAndGetHandle(ctx)
	require.ErrorIs(t, err, fs.ErrExist)
	require.ErrorContains(t, err, "Could not flush to file and close the file system output stream")
	require.Equal(t, 10, c.get("Create"), "no new attempts after the failure")
}

// TestWriteBufferIsMaxOfBufferAndThreshold counts the writes that reach the file.
func TestWriteBufferIsMaxOfBufferAndThreshold(t *testing.T) {
	for _, tc := range []struct {
		threshold, writeBuffer, size, chunk, writes int
	}{
		{10, 1000, 2000, 10, 2},   // buffer = writeBufferSize
		{100, 0, 1000, 10, 10},    // buffer = threshold
		{100, 50, 1000, 10, 10},   // buffer = threshold
		{100, 0, 1000, 1000, 1},   // a large write goes straight through
		{0, 0, 30, 10, 3},         // no buffer at all
		{100, 200, 201, 201, 1},   // one write larger than the buffer
		{100, 200, 150, 150, 1},   // above the threshold, flushed at close
		{100, 200, 300, 100, 2},   // buffer filled once, rest at close
		{1000, 0, 1001, 1001, 1},  // buffer = threshold, straight through
		{1000, 0, 1001, 1, 2},     // byte by byte: full buffer, then the last byte
		{1000, 4096, 1001, 1, 1},  // byte by byte, flushed once at close
		{1000, 4096, 5000, 1, 2},  // byte by byte: one full buffer, rest at close
		{1000, 4096, 9000, 50, 3}, // 4096 + 4096 + 808
	} {
		s, c := newCountingStorage(t, tc.threshold, tc.writeBuffer)
		loc, err := s.InitializeLocationForCheckpoint(t.Context(), 1)
		require.NoError(t, err)
		c.reset()
		data := pattern(tc.size, 3)
		h := writeState(t, loc, cs.Exclusive, data, tc.chunk)
		require.Equal(t, tc.writes, c.get("Write"), "%+v", tc)
		require.Equal(t, data, readHandle(t, h))
	}
}

func TestCloseAbortsWithoutDelete(t *testing.T) {
	ctx := t.Context()
	s, c := newCountingStorage(t, 10, 0)
	loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
	require.NoError(t, err)
	c.reset()
	out, err := loc.CreateCheckpointStateOutputStream(ctx, cs.Exclusive)
	require.NoError(t, err)
	writeChunks(t, out, pattern(100, 1), 0)
	require.NoError(t, out.Close())
	require.Equal(t, 1, c.get("Abort"))
	require.Zero(t, c.get("Delete"), "an aborted upload needs no delete")
	require.Empty(t, fileNames(t, loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()))
}

// TestSavepointDirectoryAttempts: a savepoint directory gets up to 10 random
// names; when all fail, Flink's "Failed to create savepoint directory at" names
// the base directory and wraps the last error.
func TestSavepointDirectoryAttempts(t *testing.T) {
	ctx := t.Context()
	s, c := newCountingStorage(t, 0, 0)
	failures := 9
	c.failMkdirs = func(vfs.Path) bool { failures--; return failures >= 0 }
	loc, err := s.InitializeLocationForSavepoint(ctx, 1, "")
	require.NoError(t, err)
	require.Equal(t, 10, c.get("Mkdirs"), "nine failures, then a fresh name")
	dir := loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()
	require.Equal(t, s.DefaultSavepointDirectory(), dir.Parent())

	c.reset()
	c.failMkdirs = func(vfs.Path) bool { return true }
	_, err = s.InitializeLocationForSavepoint(ctx, 2, "")
	require.ErrorIs(t, err, fs.ErrPermission)
	require.ErrorContains(t, err, "Failed to create savepoint directory at "+s.DefaultSavepointDirectory().String())
	require.Equal(t, 10, c.get("Mkdirs"), "at most 10 names")
}

// TestInitializeBaseLocations creates the job's shared/ and taskowned/
// directories, and names the directory it could not create with Flink's
// messages.
func TestInitializeBaseLocations(t *testing.T) {
	ctx := t.Context()
	s, c := newCountingStorage(t, 0, 0)
	require.NoError(t, s.InitializeBaseLocationsForCheckpoint(ctx))
	require.Equal(t, 2, c.get("Mkdirs"))
	for _, name := range []string{cs.SharedStateDir, cs.TaskOwnedStateDir} {
		st, err := c.Stat(ctx, s.CheckpointsDirectory().Join(name))
		require.NoError(t, err, name)
		require.True(t, st.IsDir, name)
	}
	for name, msg := range map[string]string{
		cs.SharedStateDir:    "Failed to create directory for shared state: ",
		cs.TaskOwnedStateDir: "Failed to create directory for task owned state: ",
	} {
		c.failMkdirs = func(p vfs.Path) bool { return p.Name() == name }
		err := s.InitializeBaseLocationsForCheckpoint(ctx)
		require.ErrorIs(t, err, fs.ErrPermission, name)
		require.ErrorContains(t, err, msg+s.CheckpointsDirectory().Join(name).String())
	}
}

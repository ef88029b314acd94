// Package layertest holds what the layers' tests share: the conformance run
// over memory:// and file://, and Spy, a file system that counts what reaches
// it.
package layertest

import (
	"context"
	"io/fs"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// Wrap puts a layer over inner; dir is the test's directory on inner, and the
// directory to test on the layer is returned with it.
type Wrap func(t *testing.T, inner vfs.FileSystem, dir vfs.Path) (vfs.FileSystem, vfs.Path)

// Conformance runs the whole conformance suite on the layer over memory://
// and over file://, and DirSync on each.
func Conformance(t *testing.T, wrap Wrap) {
	t.Run("memory", func(t *testing.T) {
		h := conformance.Harness{New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			inner := memfs.New()
			return wrap(t, inner, vfs.MustPath(inner.URI().String()).Join("conformance"))
		}}
		conformance.Run(t, h)
		t.Run("DirSync", func(t *testing.T) { DirSync(t, h.New) })
	})
	t.Run("file", func(t *testing.T) {
		inner := local.New()
		h := conformance.Harness{New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			return wrap(t, inner, vfs.MustPath(t.TempDir()).Join("conformance"))
		}}
		conformance.Run(t, h)
		t.Run("DirSync", func(t *testing.T) { DirSync(t, h.New) })
	})
}

// DirSync checks the layer's vfs.DirSyncer (both backends have one, so the
// layer must forward it): a file created with CreateUnsynced and a SyncDir of
// its directory is seen through the layer like one from Create, NoOverwrite
// holds, and a missing directory fails with fs.ErrNotExist.
func DirSync(t *testing.T, newFS func(t *testing.T) (vfs.FileSystem, vfs.Path)) {
	ctx := t.Context()
	fsys, dir := newFS(t)
	ds, ok := fsys.(vfs.DirSyncer)
	require.True(t, ok, "%T does not forward vfs.DirSyncer", fsys)
	require.NoError(t, fsys.Mkdirs(ctx, dir))
	p := dir.Join("unsynced")
	out, err := ds.CreateUnsynced(ctx, p, vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write([]byte("data"))
	require.NoError(t, err)
	require.NoError(t, out.Close())
	require.NoError(t, ds.SyncDir(ctx, dir))
	got, err := vfs.ReadFile(ctx, fsys, p)
	require.NoError(t, err, "the file CreateUnsynced made, read through the layer")
	require.Equal(t, "data", string(got))
	_, err = ds.CreateUnsynced(ctx, p, vfs.NoOverwrite)
	require.ErrorIs(t, err, fs.ErrExist)
	require.ErrorIs(t, ds.SyncDir(ctx, dir.Join("missing")), fs.ErrNotExist)
}

// Spy is a layer that counts the calls that reach it by method name, and its
// open streams (now and at most). Every optional method counts under its own
// name, so a test sees whether a layer above forwarded the fast path.
type Spy struct {
	layer.Base
	mu              sync.Mutex
	calls           map[string]int
	open, peak      int
	openIn, openOut int
	peakIn, peakOut int
}

// NewSpy returns a Spy over inner.
func NewSpy(inner vfs.FileSystem) *Spy {
	return &Spy{Base: layer.Base{Inner: inner}, calls: map[string]int{}}
}

// Calls returns how often method was called.
func (s *Spy) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// Streams returns the open streams now, and the most at any moment: in
// total, of input and of output.
func (s *Spy) Streams() (open, peak, peakIn, peakOut int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open, s.peak, s.peakIn, s.peakOut
}

func (s *Spy) count(method string) {
	s.mu.Lock()
	s.calls[method]++
	s.mu.Unlock()
}

// streams changes the open stream counts by d (input or output).
func (s *Spy) streams(input bool, d int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open += d
	s.peak = max(s.peak, s.open)
	if input {
		s.openIn += d
		s.peakIn = max(s.peakIn, s.openIn)
	} else {
		s.openOut += d
		s.peakOut = max(s.peakOut, s.openOut)
	}
}

// Stat counts and forwards.
func (s *Spy) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	s.count("Stat")
	return s.Base.Stat(ctx, p)
}

// Open counts and forwards; the stream counts as open until closed.
func (s *Spy) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	s.count("Open")
	in, err := s.Base.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	s.streams(true, 1)
	return &spyInput{Input: layer.Input{InputStream: in}, s: s}, nil
}

// OpenBeneath counts and forwards; the stream counts as open until closed.
func (s *Spy) OpenBeneath(ctx context.Context, dir vfs.Path, rel string) (vfs.InputStream, error) {
	s.count("OpenBeneath")
	in, err := s.Base.OpenBeneath(ctx, dir, rel)
	if err != nil {
		return nil, err
	}
	s.streams(true, 1)
	return &spyInput{Input: layer.Input{InputStream: in}, s: s}, nil
}

// Create counts and forwards; the stream counts as open until closed.
func (s *Spy) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	s.count("Create")
	return s.output(s.Base.Create(ctx, p, mode))
}

// CreateUnsynced counts and forwards; the stream counts as open until closed.
func (s *Spy) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	s.count("CreateUnsynced")
	return s.output(s.Base.CreateUnsynced(ctx, p, mode))
}

// output counts out as open until closed.
func (s *Spy) output(out vfs.OutputStream, err error) (vfs.OutputStream, error) {
	if err != nil {
		return nil, err
	}
	s.streams(false, 1)
	return &spyOutput{Output: layer.Output{OutputStream: out}, s: s}, nil
}

// SyncDir counts and forwards.
func (s *Spy) SyncDir(ctx context.Context, dir vfs.Path) error {
	s.count("SyncDir")
	return s.Base.SyncDir(ctx, dir)
}

// ReadFile counts and forwards; it counts as an open input stream while it
// runs.
func (s *Spy) ReadFile(ctx context.Context, p vfs.Path) ([]byte, error) {
	s.count("ReadFile")
	s.streams(true, 1)
	defer s.streams(true, -1)
	return s.Base.ReadFile(ctx, p)
}

// WriteFile counts and forwards; it counts as an open output stream while it
// runs.
func (s *Spy) WriteFile(ctx context.Context, p vfs.Path, data []byte, mode vfs.WriteMode) error {
	s.count("WriteFile")
	s.streams(false, 1)
	defer s.streams(false, -1)
	return s.Base.WriteFile(ctx, p, data, mode)
}

// CopyFile counts and forwards; it counts as an open output stream while it
// runs.
func (s *Spy) CopyFile(ctx context.Context, dst, src vfs.Path, mode vfs.WriteMode) (int64, error) {
	s.count("CopyFile")
	s.streams(false, 1)
	defer s.streams(false, -1)
	return s.Base.CopyFile(ctx, dst, src, mode)
}

// CleanTemp counts and forwards.
func (s *Spy) CleanTemp(ctx context.Context, dir vfs.Path, cutoff time.Time, dryRun bool) ([]vfs.Path, error) {
	s.count("CleanTemp")
	return s.Base.CleanTemp(ctx, dir, cutoff, dryRun)
}

// RealPath counts and forwards.
func (s *Spy) RealPath(ctx context.Context, p vfs.Path) (vfs.Path, error) {
	s.count("RealPath")
	return s.Base.RealPath(ctx, p)
}

type spyInput struct {
	layer.Input
	s      *Spy
	closed bool
}

func (i *spyInput) Close() error {
	if !i.closed {
		i.closed = true
		i.s.streams(true, -1)
	}
	return i.Input.Close()
}

type spyOutput struct {
	layer.Output
	s      *Spy
	closed bool
}

func (o *spyOutput) Abort() error {
	o.s.count("Abort")
	return o.Output.Abort()
}

func (o *spyOutput) Close() error {
	if !o.closed {
		o.closed = true
		o.s.streams(false, -1)
	}
	return o.Output.Close()
}

package limit_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/layer/internal/layertest"
	"github.com/vfskit/vfskit/layer/limit"
	"github.com/vfskit/vfskit/vfs"
)

func TestConformance(t *testing.T) {
	layertest.Conformance(t, func(t *testing.T, inner vfs.FileSystem, dir vfs.Path) (vfs.FileSystem, vfs.Path) {
		f, err := limit.New(inner, limit.Settings{Total: 64, Input: 48, Output: 48, OpenTimeout: time.Minute})
		require.NoError(t, err)
		return f, dir
	})
}

func newLimited(t *testing.T, s limit.Settings) (*limit.FS, *layertest.Spy) {
	t.Helper()
	spy := layertest.NewSpy(memfs.New())
	f, err := limit.New(spy, s)
	require.NoError(t, err)
	for i := range 4 {
		require.NoError(t, vfs.WriteFile(t.Context(), spy, vfs.MustPath(fmt.Sprintf("/f%d", i)), []byte("data"), vfs.NoOverwrite))
	}
	return f, spy
}

func TestWaitsForASlot(t *testing.T) {
	ctx := t.Context()
	f, _ := newLimited(t, limit.Settings{Total: 2, Output: 1})
	a, err := f.Open(ctx, vfs.MustPath("/f0"))
	require.NoError(t, err)
	out, err := f.Create(ctx, vfs.MustPath("/new"), vfs.NoOverwrite)
	require.NoError(t, err)
	in, outs := f.Streams()
	require.Equal(t, [2]int{1, 1}, [2]int{in, outs})

	// Full: a cancelled wait fails with the context's error.
	cctx, cancel := context.WithCancel(ctx)
	got := make(chan error, 1)
	go func() { _, err := f.Open(cctx, vfs.MustPath("/f1")); got <- err }()
	cancel()
	err = <-got
	require.ErrorIs(t, err, context.Canceled)
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)

	// A waiter gets the slot that a Close gives back.
	go func() {
		b, err := f.Open(ctx, vfs.MustPath("/f1"))
		if err == nil {
			err = b.Close()
		}
		got <- err
	}()
	require.NoError(t, a.Close())
	require.NoError(t, <-got)
	require.NoError(t, out.Close())
	in, outs = f.Streams()
	require.Zero(t, in+outs)
}

func TestOpenTimeout(t *testing.T) {
	ctx := t.Context()
	f, spy := newLimited(t, limit.Settings{Input: 1, OpenTimeout: time.Millisecond})
	a, err := f.Open(ctx, vfs.MustPath("/f0"))
	require.NoError(t, err)
	_, err = f.Open(ctx, vfs.MustPath("/f1"))
	require.ErrorIs(t, err, limit.ErrTimeout)
	require.ErrorContains(t, err, "limits: total=0, input=1, output=0; open: input=1, output=0")
	require.ErrorContains(t, err, "/f1")
	_, err = vfs.ReadFile(ctx, f, vfs.MustPath("/f1"))
	require.ErrorIs(t, err, limit.ErrTimeout, "ReadFile needs an input slot too")
	require.Equal(t, 1, spy.Calls("Open"), "nothing below was opened without a slot")
	// Output has its own limit (none here).
	require.NoError(t, vfs.WriteFile(ctx, f, vfs.MustPath("/w"), []byte("x"), vfs.NoOverwrite))
	require.NoError(t, a.Close())
	_ = a.Close() // a second Close gives nothing back twice
	in, out := f.Streams()
	require.Equal(t, [2]int{0, 0}, [2]int{in, out}, "every slot is back, once")
	data, err := vfs.ReadFile(ctx, f, vfs.MustPath("/f1"))
	require.NoError(t, err)
	require.Equal(t, "data", string(data))
	in, out = f.Streams()
	require.Zero(t, in+out)
}

// TestNeverMoreThanTotal: many goroutines reading, writing and copying; the
// streams open below never exceed the limit, and every byte is right.
func TestNeverMoreThanTotal(t *testing.T) {
	ctx := t.Context()
	f, spy := newLimited(t, limit.Settings{Total: 2})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Go(func() {
			p := vfs.MustPath(fmt.Sprintf("/g%d", g))
			data := []byte(fmt.Sprintf("goroutine %d", g))
			out, err := f.Create(ctx, p, vfs.NoOverwrite)
			if err != nil {
				errs <- err
				return
			}
			_, _ = out.Write(data)
			if err := out.Close(); err != nil {
				errs <- err
				return
			}
			in, err := f.Open(ctx, p)
			if err != nil {
				errs <- err
				return
			}
			got, err := io.ReadAll(in)
			_ = in.Close()
			if err == nil && string(got) != string(data) {
				err = fmt.Errorf("read %q, want %q", got, data)
			}
			if err == nil {
				_, err = vfs.CopyWithMode(ctx, f, p.Suffix(".copy"), f, p, vfs.NoOverwrite)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	open, peak, _, _ := spy.Streams()
	require.Zero(t, open)
	require.LessOrEqual(t, peak, 2)
	require.Equal(t, 16, spy.Calls("CopyFile"), "copies reach the fast path below")
}

func TestStreamTimeout(t *testing.T) {
	ctx := t.Context()
	f, _ := newLimited(t, limit.Settings{Total: 1, StreamTimeout: time.Millisecond})
	idle, err := f.Create(ctx, vfs.MustPath("/idle"), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = idle.Write([]byte("partial"))
	require.NoError(t, err)

	// Waiting for the only slot closes the idle stream.
	in, err := f.Open(ctx, vfs.MustPath("/f0"))
	require.NoError(t, err)
	_, err = idle.Write([]byte("more"))
	require.ErrorIs(t, err, limit.ErrStreamTimeout)
	require.ErrorIs(t, idle.Close(), limit.ErrStreamTimeout, "Close must not report success")
	ok, err := vfs.Exists(ctx, memfsOf(f), vfs.MustPath("/idle"))
	require.NoError(t, err)
	require.False(t, ok, "the idle stream published nothing")

	// An idle input stream gives way to an output stream.
	out, err := f.Create(ctx, vfs.MustPath("/next"), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = in.Read(make([]byte, 1))
	require.ErrorIs(t, err, limit.ErrStreamTimeout)
	require.NoError(t, in.Close())
	_, err = out.Write([]byte("next"))
	require.NoError(t, err)
	require.NoError(t, out.Close())
	in2, out2 := f.Streams()
	require.Zero(t, in2+out2)
}

// memfsOf is the file system below f, to look without taking a slot.
func memfsOf(f *limit.FS) vfs.FileSystem { return f.Inner }

func TestInvalidSettings(t *testing.T) {
	_, err := limit.New(memfs.New(), limit.Settings{Total: -1})
	require.ErrorIs(t, err, fs.ErrInvalid)
	require.ErrorContains(t, err, "Settings.Total is -1")
	_, err = limit.New(memfs.New(), limit.Settings{StreamTimeout: -time.Second})
	require.ErrorContains(t, err, "Settings.StreamTimeout")
}

// blocking is a layer whose streams' Read waits for release, after saying
// so on entered.
type blocking struct {
	layer.Base
	entered, release chan struct{}
}

type blockingInput struct {
	layer.Input
	b *blocking
}

func (i blockingInput) Read(p []byte) (int, error) {
	i.b.entered <- struct{}{}
	<-i.b.release
	return i.Input.Read(p)
}

func (b *blocking) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	in, err := b.Base.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	return blockingInput{layer.Input{InputStream: in}, b}, nil
}

// TestBusyStreamIsNotClosed: a stream inside a call (a Read waiting on the
// network) is not closed under its caller, however long it moves nothing.
func TestBusyStreamIsNotClosed(t *testing.T) {
	ctx := t.Context()
	inner := memfs.New()
	require.NoError(t, vfs.WriteFile(ctx, inner, vfs.MustPath("/f"), []byte("data"), vfs.NoOverwrite))
	b := &blocking{Base: layer.Base{Inner: inner}, entered: make(chan struct{}), release: make(chan struct{})}
	f, err := limit.New(b, limit.Settings{Total: 1, StreamTimeout: time.Nanosecond, OpenTimeout: 20 * time.Millisecond})
	require.NoError(t, err)
	in, err := f.Open(ctx, vfs.MustPath("/f"))
	require.NoError(t, err)
	read := make(chan error, 1)
	go func() { _, err := in.Read(make([]byte, 4)); read <- err }()
	<-b.entered
	_, err = f.Create(ctx, vfs.MustPath("/g"), vfs.NoOverwrite)
	require.ErrorIs(t, err, limit.ErrTimeout, "the busy stream kept its slot")
	close(b.release)
	require.NoError(t, <-read, "the Read finished normally")
	require.NoError(t, in.Close())

	// Abort gives the slot back too.
	out, err := f.Create(ctx, vfs.MustPath("/g"), vfs.NoOverwrite)
	require.NoError(t, err)
	require.NoError(t, out.(vfs.Aborter).Abort())
	ins, outs := f.Streams()
	require.Zero(t, ins+outs)
	_ = out.Close()
	ins, outs = f.Streams()
	require.Zero(t, ins+outs, "Close after Abort gives nothing back twice")
}

// TestCreateUnsyncedTakesASlot: vfs.DirSyncer's CreateUnsynced is counted
// against the output limit like Create.
func TestCreateUnsyncedTakesASlot(t *testing.T) {
	ctx := t.Context()
	f, spy := newLimited(t, limit.Settings{Output: 1, OpenTimeout: time.Millisecond})
	out, err := f.CreateUnsynced(ctx, vfs.MustPath("/u0"), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = f.Create(ctx, vfs.MustPath("/u1"), vfs.NoOverwrite)
	require.ErrorIs(t, err, limit.ErrTimeout)
	_, err = f.CreateUnsynced(ctx, vfs.MustPath("/u1"), vfs.NoOverwrite)
	require.ErrorIs(t, err, limit.ErrTimeout)
	require.Equal(t, 1, spy.Calls("CreateUnsynced"), "nothing below was created without a slot")
	require.NoError(t, out.Close())
	in, outs := f.Streams()
	require.Zero(t, in+outs, "the slot is back")
}

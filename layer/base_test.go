package layer_test

import (
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/layer/internal/layertest"
	"github.com/vfskit/vfskit/vfs"
)

// empty is a layer that changes nothing.
type empty struct{ layer.Base }

func TestConformance(t *testing.T) {
	layertest.Conformance(t, func(t *testing.T, inner vfs.FileSystem, dir vfs.Path) (vfs.FileSystem, vfs.Path) {
		return &empty{layer.Base{Inner: inner}}, dir
	})
}

// TestForwardsOptionalInterfaces: the helpers reach the fast paths of the
// file system below through two layers, and not its Open or Create.
func TestForwardsOptionalInterfaces(t *testing.T) {
	ctx := t.Context()
	spy := layertest.NewSpy(memfs.New())
	var fsys vfs.FileSystem = &empty{layer.Base{Inner: &empty{layer.Base{Inner: spy}}}}
	a, b := vfs.MustPath("memory:///a"), vfs.MustPath("memory:///b")

	require.NoError(t, vfs.WriteFile(ctx, fsys, a, []byte("data"), vfs.NoOverwrite))
	got, err := vfs.ReadFile(ctx, fsys, a)
	require.NoError(t, err)
	require.Equal(t, "data", string(got))
	n, err := vfs.CopyWithMode(ctx, fsys, b, fsys, a, vfs.NoOverwrite)
	require.NoError(t, err)
	require.EqualValues(t, 4, n)
	_, err = vfs.CleanTemp(ctx, fsys, vfs.MustPath("memory:///"), time.Hour)
	require.NoError(t, err)
	require.NoError(t, vfs.WalkWith(ctx, fsys, vfs.MustPath("memory:///"), vfs.WalkOptions{FollowLinks: true},
		func(vfs.FileStatus, error) error { return nil }))
	ds, ok := fsys.(vfs.DirSyncer)
	require.True(t, ok)
	out, err := ds.CreateUnsynced(ctx, vfs.MustPath("memory:///u"), vfs.NoOverwrite)
	require.NoError(t, err)
	require.NoError(t, out.Close())
	require.NoError(t, ds.SyncDir(ctx, vfs.MustPath("memory:///")))
	for _, m := range []string{"WriteFile", "ReadFile", "CopyFile", "CleanTemp", "RealPath", "CreateUnsynced", "SyncDir"} {
		require.Equal(t, 1, spy.Calls(m), m)
	}
	require.Zero(t, spy.Calls("Open"), "ReadFile went around the fast path")

	out, err = fsys.Create(ctx, vfs.MustPath("memory:///c"), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write([]byte("x"))
	require.NoError(t, err)
	aborter, ok := out.(vfs.Aborter)
	require.True(t, ok, "the stream keeps Abort")
	require.NoError(t, aborter.Abort())
	require.Equal(t, 1, spy.Calls("Abort"))
	require.Error(t, out.Close(), "Close after Abort")
	ok, err = vfs.Exists(ctx, fsys, vfs.MustPath("memory:///c"))
	require.NoError(t, err)
	require.False(t, ok, "an aborted stream publishes nothing")
}

// plain hides every optional interface of the file system it holds.
type plain struct{ vfs.FileSystem }

type closer struct {
	plain
	closed int
}

func (c *closer) Close() error { c.closed++; return nil }

// TestFallbacks: over a file system without the optional interfaces, Base's
// methods do what vfs's helpers do without them.
func TestFallbacks(t *testing.T) {
	ctx := t.Context()
	inner := memfs.New()
	base := &layer.Base{Inner: plain{inner}}
	a, b := vfs.MustPath("memory:///d/a"), vfs.MustPath("memory:///d/b")
	require.NoError(t, base.WriteFile(ctx, a, []byte("data"), vfs.NoOverwrite))
	require.ErrorIs(t, base.WriteFile(ctx, a, []byte("other"), vfs.NoOverwrite), fs.ErrExist)
	got, err := base.ReadFile(ctx, a)
	require.NoError(t, err)
	require.Equal(t, "data", string(got))
	n, err := base.CopyFile(ctx, b, a, vfs.NoOverwrite)
	require.NoError(t, err)
	require.EqualValues(t, 4, n)
	got, err = base.ReadFile(ctx, b)
	require.NoError(t, err)
	require.Equal(t, "data", string(got))

	temps, err := base.CleanTemp(ctx, vfs.MustPath("memory:///d"), time.Now(), false)
	require.NoError(t, err)
	require.Empty(t, temps)
	_, err = base.CleanTemp(ctx, vfs.MustPath("memory:///missing"), time.Now(), false)
	require.ErrorIs(t, err, fs.ErrNotExist)

	real, err := base.RealPath(ctx, vfs.MustPath("/d/a"))
	require.NoError(t, err)
	require.Equal(t, inner.URI().JoinPath("d", "a").String(), real.String())
	_, err = base.RealPath(ctx, vfs.MustPath("s3://other/x"))
	require.ErrorIs(t, err, fs.ErrInvalid)

	out, err := base.CreateUnsynced(ctx, vfs.MustPath("memory:///d/u"), vfs.NoOverwrite)
	require.NoError(t, err, "Create, below a file system without vfs.DirSyncer")
	require.NoError(t, out.Close())
	_, err = base.CreateUnsynced(ctx, vfs.MustPath("memory:///d/u"), vfs.NoOverwrite)
	require.ErrorIs(t, err, fs.ErrExist)
	require.NoError(t, base.SyncDir(ctx, vfs.MustPath("memory:///d")))
	require.NoError(t, base.SyncDir(ctx, vfs.MustPath("memory:///missing")),
		"below a file system without vfs.DirSyncer there is nothing to sync, and nothing is asked")

	require.NoError(t, base.Close(), "nothing to close")
	c := &closer{plain: plain{memfs.New()}}
	require.NoError(t, (&layer.Base{Inner: c}).Close())
	require.Equal(t, 1, c.closed)
}

type noAbort struct{ vfs.OutputStream }

func TestOutputWithoutAbort(t *testing.T) {
	out, err := memfs.New().Create(t.Context(), vfs.MustPath("/x"), vfs.NoOverwrite)
	require.NoError(t, err)
	defer vfs.Discard(out, nil)
	err = layer.Output{OutputStream: noAbort{out}}.Abort()
	require.ErrorIs(t, err, errors.ErrUnsupported)
	require.ErrorContains(t, err, "cancel the context")
}

// TestStreams: helpers over layer.Streams go through Open and Create.
func TestStreams(t *testing.T) {
	ctx := t.Context()
	spy := layertest.NewSpy(memfs.New())
	fsys := layer.Streams(&empty{layer.Base{Inner: spy}})
	_, isFast := fsys.(vfs.ReadFileFS)
	require.False(t, isFast)
	a := vfs.MustPath("/a")
	require.NoError(t, vfs.WriteFile(ctx, fsys, a, []byte("data"), vfs.NoOverwrite))
	got, err := vfs.ReadFile(ctx, fsys, a)
	require.NoError(t, err)
	require.Equal(t, "data", string(got))
	_, err = vfs.CopyWithMode(ctx, fsys, vfs.MustPath("/b"), fsys, a, vfs.NoOverwrite)
	require.NoError(t, err)
	require.Equal(t, [2]int{2, 2}, [2]int{spy.Calls("Create"), spy.Calls("Open")})
	require.Zero(t, spy.Calls("ReadFile")+spy.Calls("WriteFile")+spy.Calls("CopyFile"))
}

// pinned is an input stream that reads one version only.
type pinned struct{ vfs.InputStream }

func (pinned) PinsVersion() bool { return true }

// TestInputForwardsPinsVersion: a layer's input stream reads one version
// only exactly when the stream below does.
func TestInputForwardsPinsVersion(t *testing.T) {
	require.True(t, vfs.PinsVersion(layer.Input{InputStream: pinned{}}))
	require.False(t, vfs.PinsVersion(layer.Input{InputStream: layer.Input{}}))
}

package vfs_test

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// stubFS is a layer over a fresh memory file system that reports the URI the
// registry gave its factory; registry tests need no I/O.
type stubFS struct {
	layer.Base
	uri *url.URL
}

func newStub(u *url.URL) *stubFS { return &stubFS{Base: layer.Base{Inner: memfs.New()}, uri: u} }

func (s *stubFS) URI() *url.URL { return s.uri }

func stubFactory(calls *atomic.Int32) vfs.Factory {
	return func(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
		calls.Add(1)
		return newStub(u), nil
	}
}

func TestRegistryCachesOneInstancePerSchemeAndAuthority(t *testing.T) {
	r := vfs.NewRegistry()
	var calls atomic.Int32
	require.NoError(t, r.Register("stub", stubFactory(&calls)))
	ctx := context.Background()

	a1, err := r.Get(ctx, "stub://a/x/y")
	require.NoError(t, err)
	a2, err := r.Get(ctx, "STUB://a/other")
	require.NoError(t, err)
	b, err := r.Get(ctx, "stub://b/")
	require.NoError(t, err)
	assert.Same(t, a1, a2, "same (scheme, authority) is one instance")
	assert.NotSame(t, a1, b)
	assert.Equal(t, int32(2), calls.Load())
	assert.Equal(t, "stub://a/", a1.URI().String())
}

func TestRegistryCallsFactoryOnceUnderRace(t *testing.T) {
	r := vfs.NewRegistry()
	var calls atomic.Int32
	release := make(chan struct{})
	require.NoError(t, r.Register("slow", func(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
		calls.Add(1)
		<-release
		return newStub(u), nil
	}))
	const n = 32
	results := make([]vfs.FileSystem, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fsys, err := r.Get(context.Background(), "slow://shared/x")
			assert.NoError(t, err)
			results[i] = fsys
		}()
	}
	close(release)
	wg.Wait()
	assert.Equal(t, int32(1), calls.Load(), "one factory call per key")
	for _, f := range results {
		assert.Same(t, results[0], f)
	}
}

func TestRegistryDoesNotCacheFailures(t *testing.T) {
	r := vfs.NewRegistry()
	var calls atomic.Int32
	require.NoError(t, r.Register("flaky", func(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
		if calls.Add(1) == 1 {
			return nil, errors.New("boom")
		}
		return newStub(u), nil
	}))
	_, err := r.Get(context.Background(), "flaky://x/")
	require.ErrorContains(t, err, "boom")
	fsys, err := r.Get(context.Background(), "flaky://x/")
	require.NoError(t, err)
	assert.NotNil(t, fsys)
}

func TestRegistryRecoversFactoryPanic(t *testing.T) {
	r := vfs.NewRegistry()
	require.NoError(t, r.Register("panics", func(context.Context, *url.URL) (vfs.FileSystem, error) { panic("bad factory") }))
	_, err := r.Get(context.Background(), "panics://x/")
	require.ErrorContains(t, err, "bad factory")
}

func TestRegistryUnknownScheme(t *testing.T) {
	r := vfs.NewRegistry()
	var calls atomic.Int32
	require.NoError(t, r.Register("memory", stubFactory(&calls)))
	require.NoError(t, r.Register("s3", stubFactory(&calls)))
	_, err := r.Get(context.Background(), "nope://bucket/x")
	require.Error(t, err)
	assert.ErrorIs(t, err, vfs.ErrUnsupportedScheme)
	assert.Contains(t, err.Error(), "'nope'", "names the scheme")
	assert.Contains(t, err.Error(), "memory, s3", "lists the registered schemes")
	var use *vfs.UnsupportedSchemeError
	require.True(t, errors.As(err, &use))
	assert.Equal(t, "nope", use.Scheme)
}

func TestRegistryRejectsFileWithAuthority(t *testing.T) {
	r := vfs.NewRegistry()
	var calls atomic.Int32
	require.NoError(t, r.Register("file", stubFactory(&calls)))
	_, err := r.Get(context.Background(), "file://host/x")
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "did you forget a slash? (correct path would be 'file:///host/x')")
	assert.Equal(t, int32(0), calls.Load())
}

func TestRegistryBadInput(t *testing.T) {
	r := vfs.NewRegistry()
	_, err := r.Get(context.Background(), "")
	assert.ErrorIs(t, err, fs.ErrInvalid, "empty URI")
	_, err = r.Get(context.Background(), "1bad://x/")
	assert.ErrorIs(t, err, fs.ErrInvalid, "unparsable URI")
	assert.Error(t, r.Register("bad scheme", stubFactory(new(atomic.Int32))))
	assert.Error(t, r.Register("ok", nil))
	assert.ErrorIs(t, r.Register("q", stubFactory(new(atomic.Int32))), fs.ErrInvalid, "single letter is a drive")
	assert.ErrorIs(t, r.SetDefaultScheme("/no/scheme"), fs.ErrInvalid)
	err = r.SetDefaultScheme("relative/dir")
	assert.ErrorIs(t, err, fs.ErrInvalid, "a relative path where a URI with a scheme is needed")
	assert.ErrorContains(t, err, "relative/dir")
}

func TestRegistryDuplicateScheme(t *testing.T) {
	r := vfs.NewRegistry()
	var calls atomic.Int32
	require.NoError(t, r.Register("dup", stubFactory(&calls)))
	err := r.Register("DUP", stubFactory(&calls))
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrExist)
	assert.Contains(t, err.Error(), "dup")

	vfs.Register("vfs-test-dup", stubFactory(&calls))
	assert.Panics(t, func() { vfs.Register("vfs-test-dup", stubFactory(&calls)) })
	assert.Contains(t, vfs.DefaultRegistry().Schemes(), "vfs-test-dup")
}

func TestRegistryDefaultScheme(t *testing.T) {
	r := vfs.NewRegistry()
	var calls atomic.Int32
	require.NoError(t, r.Register("file", stubFactory(&calls)))
	require.NoError(t, r.Register("memory", stubFactory(&calls)))
	assert.Equal(t, vfs.MustPath("file:///"), r.DefaultScheme())

	fsys, err := r.Get(context.Background(), "/tmp/x")
	require.NoError(t, err)
	assert.Equal(t, "file:///", fsys.URI().String())

	require.NoError(t, r.SetDefaultScheme("memory://demo/"))
	fsys, err = r.Get(context.Background(), "/tmp/x")
	require.NoError(t, err)
	assert.Equal(t, "memory://demo/", fsys.URI().String())
	assert.Equal(t, []string{"file", "memory"}, r.Schemes())
}

func TestRegistryPassesQueryOnFirstUse(t *testing.T) {
	r := vfs.NewRegistry()
	var got []string
	require.NoError(t, r.Register("qq", func(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
		got = append(got, u.RawQuery)
		return newStub(&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}), nil
	}))
	_, err := r.Get(context.Background(), "qq://bkt?region=eu-west-1&use_path_style=true")
	require.NoError(t, err)
	_, err = r.Get(context.Background(), "qq://bkt/x?region=other")
	require.NoError(t, err)
	assert.Equal(t, []string{"region=eu-west-1&use_path_style=true"}, got)
}

func TestRegistryGetHonoursCancelledContextWhileWaiting(t *testing.T) {
	r := vfs.NewRegistry()
	release := make(chan struct{})
	started := make(chan struct{})
	require.NoError(t, r.Register("block", func(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
		close(started)
		<-release
		return newStub(u), nil
	}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = r.Get(context.Background(), "block://x/")
	}()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := r.Get(ctx, "block://x/")
	assert.ErrorIs(t, err, context.Canceled)
	close(release)
	<-done
}

// TestRegistryGetPathReadsNoQuery: a '?' inside a Path (a state file named
// "x?region=...") is part of the path, so GetPath never hands it to the factory
// as options, while Get of the same string does (the documented URI form).
func TestRegistryGetPathReadsNoQuery(t *testing.T) {
	for _, viaPath := range []bool{true, false} {
		r := vfs.NewRegistry()
		var queries []string
		require.NoError(t, r.Register("stub", func(_ context.Context, u *url.URL) (vfs.FileSystem, error) {
			queries = append(queries, u.RawQuery)
			return newStub(&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}), nil
		}))
		p := vfs.MustPath("stub://bucket/chk-1/state?region=evil-1")
		require.Equal(t, "/chk-1/state?region=evil-1", p.Path())
		var fsys vfs.FileSystem
		var err error
		if viaPath {
			fsys, err = r.GetPath(context.Background(), p)
		} else {
			fsys, err = r.Get(context.Background(), p.String())
		}
		require.NoError(t, err)
		require.Equal(t, "stub://bucket/", fsys.URI().String())
		if viaPath {
			require.Equal(t, []string{""}, queries, "GetPath passes no query to the factory")
		} else {
			require.Equal(t, []string{"region=evil-1"}, queries, "Get reads a query")
		}
	}
	_, err := vfs.NewRegistry().GetPath(context.Background(), vfs.Path{})
	require.ErrorIs(t, err, fs.ErrInvalid)
}

package vfs_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// TestRegisterTestUnregisters registers the same scheme in two tests one after
// the other, as go test -count=2 does: each gets a fresh registration and the
// scheme is gone after each.
func TestRegisterTestUnregisters(t *testing.T) {
	ctx := context.Background()
	for i := range 2 {
		var calls atomic.Int32
		t.Run(fmt.Sprint("run", i), func(t *testing.T) {
			vfs.RegisterTest(t, "regtest", stubFactory(&calls))
			fsys, err := vfs.Get(ctx, "regtest://a/x")
			require.NoError(t, err)
			assert.Equal(t, "regtest://a/", fsys.URI().String())
		})
		assert.Equal(t, int32(1), calls.Load(), "this run's factory made this run's file system")
		assert.NotContains(t, vfs.DefaultRegistry().Schemes(), "regtest")
		_, err := vfs.Get(ctx, "regtest://a/x")
		assert.ErrorIs(t, err, vfs.ErrUnsupportedScheme)
	}
}

// fatalRecorder records Fatalf instead of stopping the test.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) { f.fatal = fmt.Sprintf(format, args...) }

// TestRegisterTestTaken fails the test, naming the scheme, when the scheme is
// registered already, and leaves the existing registration alone.
func TestRegisterTestTaken(t *testing.T) {
	r := vfs.NewRegistry()
	var first, second atomic.Int32
	require.NoError(t, r.Register("taken", stubFactory(&first)))
	rec := &fatalRecorder{TB: t}
	r.RegisterTest(rec, "taken", stubFactory(&second))
	assert.Contains(t, rec.fatal, `"taken"`)
	assert.Contains(t, rec.fatal, "already registered")
	_, err := r.Get(context.Background(), "taken://x/")
	require.NoError(t, err)
	assert.Equal(t, int32(1), first.Load())
	assert.Equal(t, int32(0), second.Load())
}

// TestUnregisterForgetsCache: after Unregister and a new Register, Get calls
// the new factory rather than returning the old scheme's cached instance.
func TestUnregisterForgetsCache(t *testing.T) {
	ctx := context.Background()
	r := vfs.NewRegistry()
	var a, b atomic.Int32
	require.NoError(t, r.Register("swap", stubFactory(&a)))
	_, err := r.Get(ctx, "swap://x/")
	require.NoError(t, err)
	r.Unregister("SWAP")
	r.Unregister("never-registered")
	require.NoError(t, r.Register("swap", stubFactory(&b)))
	_, err = r.Get(ctx, "swap://x/")
	require.NoError(t, err)
	assert.Equal(t, int32(1), a.Load())
	assert.Equal(t, int32(1), b.Load())
}

// TestFreshRegistryErrorSaysWhatToDo: a scheme registered on the default
// registry but not on a NewRegistry is not reported as a missing import.
func TestFreshRegistryErrorSaysWhatToDo(t *testing.T) {
	ctx := context.Background()
	vfs.RegisterTest(t, "indefault", stubFactory(new(atomic.Int32)))
	r := vfs.NewRegistry()
	_, err := r.Get(ctx, "indefault://x/y")
	require.ErrorIs(t, err, vfs.ErrUnsupportedScheme)
	assert.NotContains(t, err.Error(), "no backend registered it")
	assert.Contains(t, err.Error(), "register the scheme on this registry (Register) or use vfs.DefaultRegistry()")

	_, err = r.Get(ctx, "nowhere://x/y")
	require.ErrorIs(t, err, vfs.ErrUnsupportedScheme)
	assert.Contains(t, err.Error(), "no backend registered it")
	_, err = vfs.Get(ctx, "nowhere://x/y")
	assert.Contains(t, err.Error(), "no backend registered it")
}

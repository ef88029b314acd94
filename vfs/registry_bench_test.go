package vfs_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// A cached file system is found without allocating: by URI string (parsing
// included) and by Path (make bench's target: at most 100 ns, 0 allocations; see
// BenchmarkGetCached).
func TestGetCachedDoesNotAllocate(t *testing.T) {
	ctx := context.Background()
	want, err := vfs.Get(ctx, "memory://bench/")
	require.NoError(t, err)
	p := vfs.MustPath("memory://bench/a/b")
	for _, uri := range []string{"memory://bench/", "memory://bench/a/b/c.txt"} {
		var got vfs.FileSystem
		allocs := testing.AllocsPerRun(100, func() { got, err = vfs.Get(ctx, uri) })
		require.NoError(t, err)
		assert.Same(t, want, got)
		assert.Zero(t, allocs, "vfs.Get(%q)", uri)
	}
	var got vfs.FileSystem
	allocs := testing.AllocsPerRun(100, func() { got, err = p.FileSystem(ctx) })
	require.NoError(t, err)
	assert.Same(t, want, got)
	assert.Zero(t, allocs, "Path.FileSystem")
}

// BenchmarkGetCached measures vfs.Get and Path.FileSystem for a file system
// already in the registry's cache (make bench's target: ≤ 100 ns, 0 allocs).
func BenchmarkGetCached(b *testing.B) {
	ctx := context.Background()
	if _, err := vfs.Get(ctx, "memory://bench/"); err != nil {
		b.Fatal(err)
	}
	b.Run("Get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := vfs.Get(ctx, "memory://bench/"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Path.FileSystem", func(b *testing.B) {
		p := vfs.MustPath("memory://bench/a/b")
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.FileSystem(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

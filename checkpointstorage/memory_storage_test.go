package checkpointstorage_test

import (
	"context"
	"io/fs"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

func TestMemoryStorageWithoutDirectoryTouchesNothing(t *testing.T) {
	ctx := t.Context()
	job := cs.NewJobID()
	s, err := cs.NewMemoryBackendCheckpointStorage(ctx, job, vfs.Path{}, vfs.Path{}, 100)
	require.NoError(t, err)
	require.False(t, s.SupportsHighlyAvailableStorage())
	require.False(t, s.HasDefaultSavepointLocation())
	require.Equal(t, 100, s.MaxStateSize())

	loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
	require.NoError(t, err)
	require.IsType(t, &cs.NonPersistentMetadataCheckpointStorageLocation{}, loc)
	require.True(t, loc.LocationReference().IsDefault())
	h := writeState(t, loc, cs.Exclusive, []byte("state"), 2)
	require.Equal(t, cs.KindInline, cs.KindOf(h))

	c, err := cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, 1, h))
	require.NoError(t, err)
	require.Equal(t, cs.NotExternallyAddressablePointer, c.ExternalPointer())
	require.Equal(t, cs.KindInline, cs.KindOf(c.MetadataHandle()))
	m, err := cs.ReadMetadata(ctx, c)
	require.NoError(t, err)
	checkRestored(t, m, [][]byte{[]byte("state")})
	require.NoError(t, c.DisposeStorageLocation(ctx))
	require.NoError(t, loc.DisposeOnFailure(ctx))

	_, err = s.InitializeLocationForSavepoint(ctx, 2, "")
	require.ErrorContains(t, err, "No savepoint location given and no default location configured.")
}

// TestMemoryStorageWithoutDirectoryMakesNoRequest runs a checkpoint of the memory
// storage without a checkpoints directory over a registry whose file systems
// count every operation: none is looked up or touched.
func TestMemoryStorageWithoutDirectoryMakesNoRequest(t *testing.T) {
	ctx := t.Context()
	c := newCountingFS(memfs.New())
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register(memfs.Scheme, func(context.Context, *url.URL) (vfs.FileSystem, error) {
		c.count("Get")
		return c, nil
	}))
	require.NoError(t, reg.SetDefaultScheme(memfs.Scheme+"://x/"))
	job := cs.NewJobID()
	s, err := cs.NewMemoryBackendCheckpointStorage(ctx, job, vfs.Path{}, vfs.Path{}, 0, cs.WithRegistry(reg))
	require.NoError(t, err)
	loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
	require.NoError(t, err)
	f, err := s.ResolveCheckpointStorageLocation(ctx, 1, loc.LocationReference())
	require.NoError(t, err)
	h := writeState(t, f, cs.Exclusive, pattern(1000, 1), 10)
	task, err := s.CreateTaskOwnedStateStream(ctx)
	require.NoError(t, err)
	writeChunks(t, task, pattern(10, 2), 0)
	th, err := task.CloseAndGetHandle(ctx)
	require.NoError(t, err)
	c2, err := cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, 1, h, th))
	require.NoError(t, err)
	m, err := cs.ReadMetadata(ctx, c2, cs.WithRegistry(reg))
	require.NoError(t, err)
	checkRestored(t, m, [][]byte{pattern(1000, 1), pattern(10, 2)})
	require.NoError(t, c2.DisposeStorageLocation(ctx))
	require.Empty(t, c.ops, "no file system looked up or touched")
}

func TestMemoryStorageMaxStateSize(t *testing.T) {
	ctx := t.Context()
	const max = 64
	s, err := cs.NewMemoryBackendCheckpointStorage(ctx, cs.NewJobID(), vfs.Path{}, vfs.Path{}, max)
	require.NoError(t, err)
	loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
	require.NoError(t, err)
	f, err := s.ResolveCheckpointStorageLocation(ctx, 1, cs.EncodePathAsReference(vfs.MustPath("/ignored")))
	require.NoError(t, err)
	task, err := s.CreateTaskOwnedStateStream(ctx)
	require.NoError(t, err)

	for _, factory := range []cs.CheckpointStreamFactory{loc, f} {
		for _, chunk := range []int{0, 1, 10} {
			// exactly max fits, one call or chunks
			data := pattern(max, 1)
			h := writeState(t, factory, cs.Shared, data, chunk)
			require.Equal(t, data, readHandle(t, h))

			// one byte more fails with Flink's message
			out, err := factory.CreateCheckpointStateOutputStream(ctx, cs.Exclusive)
			require.NoError(t, err)
			writeChunks(t, out, pattern(max+1, 2), chunk)
			_, err = out.CloseAndGetHandle(ctx)
			require.ErrorIs(t, err, cs.ErrStateTooLarge)
			require.EqualError(t, err, "Size of the state is larger than the maximum permitted memory-backed state. Size=65, maxSize=64. "+
				"Consider using a different checkpoint storage, like the FileSystemCheckpointStorage.: state too large")
			_, err = out.CloseAndGetHandle(ctx)
			require.ErrorIs(t, err, fs.ErrClosed)
			require.ErrorContains(t, err, "stream has already been closed")
		}
	}
	writeChunks(t, task, pattern(max+1, 1), 0)
	_, err = task.CloseAndGetHandle(ctx)
	require.ErrorIs(t, err, cs.ErrStateTooLarge)

	// nothing written: no handle
	out, err := loc.CreateCheckpointStateOutputStream(ctx, cs.Exclusive)
	require.NoError(t, err)
	h, err := out.CloseAndGetHandle(ctx)
	require.NoError(t, err)
	require.Nil(t, h)

	// Close discards
	out, err = loc.CreateCheckpointStateOutputStream(ctx, cs.Exclusive)
	require.NoError(t, err)
	_, err = out.Write([]byte("x"))
	require.NoError(t, err)
	require.NoError(t, out.Close())
	_, err = out.Write([]byte("x"))
	require.ErrorIs(t, err, fs.ErrClosed)
}

func TestMemoryStorageBadConfiguration(t *testing.T) {
	_, err := cs.NewMemoryBackendCheckpointStorage(t.Context(), cs.NewJobID(), vfs.Path{}, vfs.Path{}, -1)
	require.ErrorIs(t, err, fs.ErrInvalid)
	s, err := cs.NewMemoryBackendCheckpointStorage(t.Context(), cs.NewJobID(), vfs.Path{}, vfs.Path{}, 0)
	require.NoError(t, err)
	require.Equal(t, cs.DefaultMaxStateSize, s.MaxStateSize())
	_, err = cs.NewMemoryBackendCheckpointStorage(t.Context(), cs.NewJobID(), vfs.MustPath("nosuchscheme://x/"), vfs.Path{}, 0)
	require.ErrorIs(t, err, vfs.ErrUnsupportedScheme)
}

func TestMemoryStorageWithDirectory(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		base := b.base(t)
		job := cs.NewJobID()
		s, err := cs.NewMemoryBackendCheckpointStorage(ctx, job, base, base.Join("sp"), 1000)
		require.NoError(t, err)
		require.True(t, s.SupportsHighlyAvailableStorage())
		require.True(t, s.HasDefaultSavepointLocation())

		loc, err := s.InitializeLocationForCheckpoint(ctx, 3)
		require.NoError(t, err)
		pl := loc.(*cs.PersistentMetadataCheckpointStorageLocation)
		dir := cs.CheckpointDir(s.CheckpointsDirectory(), 3)
		require.Equal(t, dir, pl.CheckpointDir())
		data := pattern(1000, 4)
		h := writeState(t, loc, cs.Exclusive, data, 0)
		require.Equal(t, cs.KindInline, cs.KindOf(h))
		require.Empty(t, fileNames(t, dir), "state stays inline")

		c, err := cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, 3, h))
		require.NoError(t, err)
		require.Equal(t, dir.String(), c.ExternalPointer())
		require.Equal(t, []string{cs.MetadataFileName}, fileNames(t, dir))
		_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, 3, h))
		require.ErrorIs(t, err, fs.ErrExist, "published once")

		m, l, err := cs.LoadCheckpoint(ctx, c.ExternalPointer())
		require.NoError(t, err)
		require.Equal(t, dir, l.CheckpointDir())
		checkRestored(t, m, [][]byte{data})

		// savepoint in the default location
		sp, err := s.InitializeLocationForSavepoint(ctx, 4, "")
		require.NoError(t, err)
		spDir := sp.(*cs.PersistentMetadataCheckpointStorageLocation).CheckpointDir()
		require.True(t, strings.HasPrefix(spDir.Name(), "savepoint-"+job.String()[:6]+"-"))
		sc, err := cs.FinalizeCheckpoint(ctx, sp, sampleMetadata(job, 4, h))
		require.NoError(t, err)
		m, _, err = cs.LoadCheckpoint(ctx, sc.ExternalPointer())
		require.NoError(t, err)
		checkRestored(t, m, [][]byte{data})

		// failed checkpoint: directory gone
		loc, err = s.InitializeLocationForCheckpoint(ctx, 5)
		require.NoError(t, err)
		require.NoError(t, loc.DisposeOnFailure(ctx))
		require.False(t, exists(t, cs.CheckpointDir(s.CheckpointsDirectory(), 5)))
	})
}

func TestMemCheckpointStreamFactoryString(t *testing.T) {
	f := cs.NewMemCheckpointStreamFactory(0)
	require.Equal(t, cs.DefaultMaxStateSize, f.MaxStateSize())
	require.Equal(t, "In-Memory Stream Factory", f.String())
	_ = memfs.Scheme
}

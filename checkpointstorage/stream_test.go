package checkpointstorage_test

import (
	"context"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

func TestCancelledStreamPublishesNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		s, _ := newFsStorage(t, b.base(t), 10, 0)
		loc, err := s.InitializeLocationForCheckpoint(t.Context(), 1)
		require.NoError(t, err)
		dir := loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()

		// the context of the stream is cancelled while the file is written
		ctx, cancel := context.WithCancel(t.Context())
		out, err := loc.CreateCheckpointStateOutputStream(ctx, cs.Exclusive)
		require.NoError(t, err)
		writeChunks(t, out, pattern(100, 1), 0)
		cancel()
		_, err = out.CloseAndGetHandle(t.Context())
		require.ErrorIs(t, err, context.Canceled)
		require.ErrorContains(t, err, "Could not flush to file and close the file system output stream to ")
		require.Empty(t, fileNames(t, dir))

		// the context given to CloseAndGetHandle is cancelled
		out, err = loc.CreateCheckpointStateOutputStream(t.Context(), cs.Exclusive)
		require.NoError(t, err)
		writeChunks(t, out, pattern(100, 1), 0)
		done, cancel2 := context.WithCancel(t.Context())
		cancel2()
		_, err = out.CloseAndGetHandle(done)
		require.ErrorIs(t, err, context.Canceled)
		require.Empty(t, fileNames(t, dir))

		// the metadata stream's context is cancelled before finalization
		ctx, cancel = context.WithCancel(t.Context())
		mout, err := loc.CreateMetadataOutputStream(ctx)
		require.NoError(t, err)
		_, err = mout.Write([]byte("metadata"))
		require.NoError(t, err)
		cancel()
		_, err = mout.CloseAndFinalizeCheckpoint(t.Context())
		require.ErrorIs(t, err, context.Canceled)
		require.ErrorContains(t, err, "Could not flush and close the file system output stream to "+
			loc.(*cs.FsCheckpointStorageLocation).MetadataPath().String()+" in order to obtain the stream state handle")
		require.False(t, exists(t, loc.(*cs.FsCheckpointStorageLocation).MetadataPath()))
	})
}

func TestStreamFactoryConstructors(t *testing.T) {
	ctx := t.Context()
	base := memoryBackend.base(t)
	fsys := fsOf(t, base)
	f, err := cs.NewFsCheckpointStreamFactory(fsys, base.Join("x"), base.Join("shared"), 4, 8)
	require.NoError(t, err)
	require.Equal(t, "File Stream Factory @ "+base.Join("x").String(), f.String())
	h := writeState(t, f, cs.Exclusive, []byte("hello"), 0)
	require.Equal(t, base.Join("x"), h.(*cs.RelativeFileStateHandle).FilePath.Parent())
	_, err = f.CreateCheckpointStateOutputStream(ctx, cs.StateScope(7))
	require.ErrorIs(t, err, fs.ErrInvalid)

	for name, fn := range map[string]func() error{
		"negative threshold": func() error { _, err := cs.NewFsCheckpointStreamFactory(fsys, base, base, -1, 0); return err },
		"large threshold": func() error {
			_, err := cs.NewFsCheckpointStreamFactory(fsys, base, base, cs.MaxFileStateThreshold+1, 0)
			return err
		},
		"no file system":   func() error { _, err := cs.NewFsCheckpointStreamFactory(nil, base, base, 0, 0); return err },
		"no directory":     func() error { _, err := cs.NewFsCheckpointStreamFactory(fsys, vfs.Path{}, base, 0, 0); return err },
		"buffer too small": func() error { _, err := cs.NewFsCheckpointStateOutputStream(ctx, fsys, base, 1, 2, true); return err },
		"negative stream threshold": func() error {
			_, err := cs.NewFsCheckpointStateOutputStream(ctx, fsys, base, 1, -1, true)
			return err
		},
		"stream without file system": func() error {
			_, err := cs.NewFsCheckpointStateOutputStream(ctx, nil, base, 0, 0, true)
			return err
		},
		"stream without directory": func() error {
			_, err := cs.NewFsCheckpointStateOutputStream(ctx, fsys, vfs.Path{}, 0, 0, true)
			return err
		},
		"bad entropy (fac)": func() error {
			_, err := cs.NewFsCheckpointStreamFactory(fsys, base, base, 0, 0, cs.WithEntropyInjection("#", 1))
			return err
		},
	} {
		require.ErrorIs(t, fn(), fs.ErrInvalid, name)
	}

	out, err := cs.NewFsCheckpointStateOutputStream(ctx, fsys, base.Join("y"), 4, 4, false)
	require.NoError(t, err)
	writeChunks(t, out, []byte("hello"), 1)
	h, err = out.CloseAndGetHandle(ctx)
	require.NoError(t, err)
	require.Equal(t, cs.KindFile, cs.KindOf(h))
	require.True(t, out.IsClosed())
	require.Equal(t, []byte("hello"), readHandle(t, h))
}

func TestSavepointLocationBadPointer(t *testing.T) {
	s, _ := newFsStorage(t, memoryBackend.base(t), 0, 0)
	_, err := s.InitializeLocationForSavepoint(t.Context(), 1, "1bad://x/y")
	require.ErrorIs(t, err, fs.ErrInvalid)
	require.ErrorContains(t, err, "1bad://x/y")
	_, err = s.InitializeLocationForSavepoint(t.Context(), 1, "nosuchscheme://x/y")
	require.ErrorIs(t, err, vfs.ErrUnsupportedScheme)
}

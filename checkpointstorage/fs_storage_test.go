package checkpointstorage_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

const testThreshold = 100

func newFsStorage(t *testing.T, base vfs.Path, threshold, writeBuffer int, opts ...cs.Option) (*cs.FsCheckpointStorage, cs.JobID) {
	t.Helper()
	job := cs.NewJobID()
	s, err := cs.NewFsCheckpointStorage(t.Context(), job, base, vfs.Path{}, threshold, writeBuffer, opts...)
	require.NoError(t, err)
	return s, job
}

func TestFsCheckpointAndRestore(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		base := b.base(t)
		s, job := newFsStorage(t, base, testThreshold, 64)
		require.True(t, s.SupportsHighlyAvailableStorage())
		require.False(t, s.HasDefaultSavepointLocation())
		require.Equal(t, cs.JobCheckpointsDir(base.MakeQualified(fsOf(t, base)), job), s.CheckpointsDirectory())

		loc, err := s.InitializeLocationForCheckpoint(ctx, 7)
		require.NoError(t, err)
		require.True(t, loc.LocationReference().IsDefault())
		chkDir := s.CheckpointsDirectory().Join("chk-7")

		// tasks resolve the location from the default reference
		f, err := s.ResolveCheckpointStorageLocation(ctx, 7, loc.LocationReference())
		require.NoError(t, err)
		small, large, shared := pattern(10, 1), pattern(5000, 2), pattern(300, 3)
		hSmall := writeState(t, f, cs.Exclusive, small, 0)
		hLarge := writeState(t, f, cs.Exclusive, large, 77)
		hShared := writeState(t, f, cs.Shared, shared, 0)

		require.Equal(t, cs.KindInline, cs.KindOf(hSmall))
		require.Equal(t, cs.KindRelativeFile, cs.KindOf(hLarge))
		require.Equal(t, cs.KindFile, cs.KindOf(hShared))
		rel := hLarge.(*cs.RelativeFileStateHandle)
		require.Equal(t, chkDir.Join(rel.RelativePath), rel.FilePath)
		require.Regexp(t, `^[0-9a-f-]{36}$`, rel.RelativePath)
		sh := hShared.(*cs.FileStateHandle)
		require.Equal(t, s.CheckpointsDirectory().Join(cs.SharedStateDir), sh.FilePath.Parent())
		require.Equal(t, cs.Shared, sh.Scope)
		require.Equal(t, int64(300), sh.StateSize())

		completed, err := cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, 7, hSmall, hLarge, hShared))
		require.NoError(t, err)
		require.Equal(t, chkDir.String(), completed.ExternalPointer())
		require.Equal(t, chkDir.Join(cs.MetadataFileName), completed.MetadataHandle().(*cs.FileStateHandle).FilePath)

		for _, pointer := range []string{completed.ExternalPointer(), chkDir.Join(cs.MetadataFileName).String()} {
			m, l, err := cs.LoadCheckpoint(ctx, pointer)
			require.NoError(t, err, pointer)
			require.Equal(t, chkDir, l.CheckpointDir())
			require.Equal(t, int64(7), m.CheckpointID)
			require.Equal(t, job, cs.JobID(m.JobID))
			require.True(t, fixedTime.Equal(m.Timestamp))
			checkRestored(t, m, [][]byte{small, large, shared})
			require.Equal(t, []cs.HandleKind{cs.KindInline, cs.KindRelativeFile, cs.KindFile},
				[]cs.HandleKind{cs.KindOf(m.Handles()[0]), cs.KindOf(m.Handles()[1]), cs.KindOf(m.Handles()[2])})
		}
		// ResolveCheckpoint on the storage gives the same location
		r, err := s.ResolveCheckpoint(ctx, completed.ExternalPointer())
		require.NoError(t, err)
		require.Equal(t, completed.ExternalPointer(), r.ExternalPointer())
	})
}

func TestFsThresholdBoundary(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		base := b.base(t)
		for _, wb := range []int{0, testThreshold / 2, testThreshold, 4 * testThreshold} {
			s, _ := newFsStorage(t, base, testThreshold, wb)
			loc, err := s.InitializeLocationForCheckpoint(t.Context(), int64(wb))
			require.NoError(t, err)
			for _, tc := range []struct {
				size  int
				chunk int
				kind  cs.HandleKind
			}{
				{1, 0, cs.KindInline},
				{testThreshold, 0, cs.KindInline},            // exactly threshold, one call
				{testThreshold, 1, cs.KindInline},            // exactly threshold, byte by byte
				{testThreshold, 33, cs.KindInline},           // exactly threshold, uneven chunks
				{testThreshold + 1, 0, cs.KindRelativeFile},  // one more, one call
				{testThreshold + 1, 1, cs.KindRelativeFile},  // one more, byte by byte
				{testThreshold + 1, 50, cs.KindRelativeFile}, // one more, chunks
				{10 * testThreshold, 7, cs.KindRelativeFile},
			} {
				name := fmt.Sprintf("wb=%d/size=%d/chunk=%d", wb, tc.size, tc.chunk)
				data := pattern(tc.size, byte(tc.chunk))
				h := writeState(t, loc, cs.Exclusive, data, tc.chunk)
				require.Equal(t, tc.kind, cs.KindOf(h), name)
				require.Equal(t, data, readHandle(t, h), name)
				require.Equal(t, int64(tc.size), h.StateSize(), name)
			}
		}
	})
}

func TestFsZeroThresholdWritesFiles(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		s, _ := newFsStorage(t, b.base(t), 0, 0)
		loc, err := s.InitializeLocationForCheckpoint(t.Context(), 1)
		require.NoError(t, err)
		h := writeState(t, loc, cs.Exclusive, []byte{42}, 0)
		require.Equal(t, cs.KindRelativeFile, cs.KindOf(h))
		require.Equal(t, []byte{42}, readHandle(t, h))
	})
}

func TestFsEmptyStreamHasNoHandle(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		s, _ := newFsStorage(t, b.base(t), 0, 0)
		loc, err := s.InitializeLocationForCheckpoint(t.Context(), 1)
		require.NoError(t, err)
		out, err := loc.CreateCheckpointStateOutputStream(t.Context(), cs.Exclusive)
		require.NoError(t, err)
		h, err := out.CloseAndGetHandle(t.Context())
		require.NoError(t, err)
		require.Nil(t, h)
		require.Empty(t, fileNames(t, loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()))
	})
}

func TestFsCloseWithoutHandlePublishesNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		s, _ := newFsStorage(t, b.base(t), testThreshold, 16)
		loc, err := s.InitializeLocationForCheckpoint(ctx, 3)
		require.NoError(t, err)
		dir := loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()
		for _, scope := range []cs.StateScope{cs.Exclusive, cs.Shared} {
			out, err := loc.CreateCheckpointStateOutputStream(ctx, scope)
			require.NoError(t, err)
			writeChunks(t, out, pattern(3*testThreshold, 9), 10)
			require.NoError(t, out.Flush())
			require.NoError(t, out.Sync())
			require.NoError(t, out.Close())
			require.NoError(t, out.Close(), "second Close")
			_, err = out.Write([]byte{1})
			require.ErrorIs(t, err, fs.ErrClosed)
			_, err = out.CloseAndGetHandle(ctx)
			require.ErrorIs(t, err, fs.ErrClosed)
			require.ErrorContains(t, err, "Stream has already been closed and discarded.")
		}
		require.Empty(t, fileNames(t, dir))
		require.Empty(t, fileNames(t, s.CheckpointsDirectory().Join(cs.SharedStateDir)))
	})
}

func TestMetadataPublishedOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		s, job := newFsStorage(t, b.base(t), testThreshold, 0)
		loc, err := s.InitializeLocationForCheckpoint(ctx, 5)
		require.NoError(t, err)
		mp := loc.(*cs.FsCheckpointStorageLocation).MetadataPath()

		// nothing is visible before the stream is finalized
		out, err := loc.CreateMetadataOutputStream(ctx)
		require.NoError(t, err)
		first := sampleMetadata(job, 5, cs.NewByteStreamStateHandle("a", []byte("first")))
		_, err = first.WriteTo(out)
		require.NoError(t, err)
		require.False(t, exists(t, mp), "_metadata visible before finalization")
		_, err = cs.ResolveCheckpointPointer(ctx, mp.Parent().String())
		require.ErrorIs(t, err, fs.ErrNotExist)

		// a second attempt racing the first: both open, the first to finalize wins
		out2, err := loc.CreateMetadataOutputStream(ctx)
		require.NoError(t, err)
		second := sampleMetadata(job, 5, cs.NewByteStreamStateHandle("b", []byte("second")))
		_, err = second.WriteTo(out2)
		require.NoError(t, err)

		c, err := out.CloseAndFinalizeCheckpoint(ctx)
		require.NoError(t, err)
		_, err = out2.CloseAndFinalizeCheckpoint(ctx)
		require.ErrorIs(t, err, fs.ErrExist)
		require.ErrorContains(t, err, "Target file "+mp.String()+" already exists.")

		// a later attempt fails too, at creation or at finalization
		_, err = cs.FinalizeCheckpoint(ctx, loc, second)
		require.ErrorIs(t, err, fs.ErrExist)

		m, err := cs.ReadMetadata(ctx, c)
		require.NoError(t, err)
		checkRestored(t, m, [][]byte{[]byte("first")})
		_, err = out.CloseAndFinalizeCheckpoint(ctx)
		require.ErrorContains(t, err, "Stream has already been closed and discarded.")
	})
}

func TestMetadataStreamCloseDiscards(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		s, _ := newFsStorage(t, b.base(t), testThreshold, 0)
		loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
		require.NoError(t, err)
		out, err := loc.CreateMetadataOutputStream(ctx)
		require.NoError(t, err)
		_, err = out.Write([]byte("partial"))
		require.NoError(t, err)
		require.Equal(t, int64(7), out.Pos())
		require.NoError(t, out.Close())
		require.False(t, exists(t, loc.(*cs.FsCheckpointStorageLocation).MetadataPath()))
		// the slot is still free: a new attempt publishes
		_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(s.JobID(), 1))
		require.NoError(t, err)
	})
}

func TestTaskOwnedState(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		s, _ := newFsStorage(t, b.base(t), testThreshold, 0)
		out, err := s.CreateTaskOwnedStateStream(t.Context())
		require.NoError(t, err)
		data := pattern(testThreshold+1, 5)
		writeChunks(t, out, data, 0)
		h, err := out.CloseAndGetHandle(t.Context())
		require.NoError(t, err)
		fh, ok := h.(*cs.FileStateHandle)
		require.True(t, ok, "%T", h)
		require.Equal(t, s.CheckpointsDirectory().Join(cs.TaskOwnedStateDir), fh.FilePath.Parent())
		require.Equal(t, cs.Shared, fh.Scope)
		require.Equal(t, data, readHandle(t, h))
		require.NoError(t, h.DiscardState(t.Context()))
		require.False(t, exists(t, fh.FilePath))
		require.NoError(t, h.DiscardState(t.Context()), "discarding twice")
	})
}

func TestSavepoints(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		base := b.base(t)
		job := cs.NewJobID()
		defaultDir := base.Join("savepoints")
		s, err := cs.NewFsCheckpointStorage(ctx, job, base.Join("checkpoints"), defaultDir, testThreshold, 0)
		require.NoError(t, err)
		require.True(t, s.HasDefaultSavepointLocation())

		nameRe := regexp.MustCompile(`^savepoint-` + job.String()[:6] + `-[0-9a-f]{12}$`)
		explicit := base.Join("elsewhere")
		for _, tc := range []struct {
			pointer string
			parent  vfs.Path
		}{{"", defaultDir}, {explicit.String(), explicit}} {
			loc, err := s.InitializeLocationForSavepoint(ctx, 9, tc.pointer)
			require.NoError(t, err)
			fl := loc.(*cs.FsCheckpointStorageLocation)
			dir := fl.CheckpointDir()
			require.Regexp(t, nameRe, dir.Name())
			require.Equal(t, tc.parent.MakeQualified(fsOf(t, base)), dir.Parent())
			require.False(t, loc.LocationReference().IsDefault())
			decoded, err := cs.DecodePathFromReference(loc.LocationReference())
			require.NoError(t, err)
			require.Equal(t, dir, decoded)

			// a task finds the savepoint directory from the reference
			f, err := s.ResolveCheckpointStorageLocation(ctx, 9, loc.LocationReference())
			require.NoError(t, err)
			big := pattern(500, 1)
			h := writeState(t, f, cs.Exclusive, big, 0)
			require.Equal(t, dir, h.(*cs.RelativeFileStateHandle).FilePath.Parent())
			hs := writeState(t, f, cs.Shared, big, 0)
			require.Equal(t, dir, hs.(*cs.FileStateHandle).FilePath.Parent(), "shared state of a savepoint stays in it")
			c, err := cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, 9, h))
			require.NoError(t, err)
			require.Equal(t, dir.String(), c.ExternalPointer())
		}
		// two savepoints never share a directory
		l1, err := s.InitializeLocationForSavepoint(ctx, 10, "")
		require.NoError(t, err)
		l2, err := s.InitializeLocationForSavepoint(ctx, 10, "")
		require.NoError(t, err)
		require.NotEqual(t, l1.(*cs.FsCheckpointStorageLocation).CheckpointDir(), l2.(*cs.FsCheckpointStorageLocation).CheckpointDir())

		// without any location
		s2, _ := newFsStorage(t, base, 0, 0)
		_, err = s2.InitializeLocationForSavepoint(ctx, 1, "")
		require.ErrorIs(t, err, fs.ErrInvalid)
		require.ErrorContains(t, err, "No savepoint location given and no default location configured.")
	})
}

func TestDisposal(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		s, job := newFsStorage(t, b.base(t), 0, 0)
		shared := s.CheckpointsDirectory().Join(cs.SharedStateDir)

		// a failed checkpoint is removed with everything in it
		loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
		require.NoError(t, err)
		dir := loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()
		writeState(t, loc, cs.Exclusive, pattern(10, 1), 0)
		writeState(t, loc, cs.Exclusive, pattern(10, 2), 0)
		hs := writeState(t, loc, cs.Shared, pattern(10, 3), 0)
		require.Len(t, fileNames(t, dir), 2)
		require.NoError(t, loc.DisposeOnFailure(ctx))
		require.False(t, exists(t, dir))
		require.True(t, exists(t, hs.(*cs.FileStateHandle).FilePath), "shared state survives")

		// a completed one too (recursively, unlike Flink: FLINK-38909)
		loc, err = s.InitializeLocationForCheckpoint(ctx, 2)
		require.NoError(t, err)
		h := writeState(t, loc, cs.Exclusive, pattern(10, 1), 0)
		c, err := cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, 2, h, hs))
		require.NoError(t, err)
		require.NoError(t, c.DisposeStorageLocation(ctx))
		require.False(t, exists(t, loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()))
		require.True(t, exists(t, hs.(*cs.FileStateHandle).FilePath))
		require.Len(t, fileNames(t, shared), 1)
		require.NoError(t, c.DisposeStorageLocation(ctx), "disposing twice")
	})
}

func TestConcurrentCheckpoints(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		s, job := newFsStorage(t, b.base(t), testThreshold, 0)
		const n = 8
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				errs[i] = func() error {
					id := int64(i + 1)
					loc, err := s.InitializeLocationForCheckpoint(ctx, id)
					if err != nil {
						return err
					}
					var hs []cs.StreamStateHandle
					for j := range 3 {
						out, err := loc.CreateCheckpointStateOutputStream(ctx, cs.Exclusive)
						if err != nil {
							return err
						}
						if _, err := out.Write(stateFor(id, j)); err != nil {
							return err
						}
						h, err := out.CloseAndGetHandle(ctx)
						if err != nil {
							return err
						}
						hs = append(hs, h)
					}
					_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, id, hs...))
					return err
				}()
			})
		}
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "checkpoint %d", i+1)
		}
		infos, err := cs.ListCompletedCheckpoints(ctx, s.CheckpointsDirectory())
		require.NoError(t, err)
		require.Len(t, infos, n)
		for i, info := range infos {
			id := int64(i + 1)
			require.Equal(t, id, info.CheckpointID)
			m, _, err := cs.LoadCheckpoint(ctx, info.Dir.String())
			require.NoError(t, err)
			require.Equal(t, id, m.CheckpointID)
			checkRestored(t, m, [][]byte{stateFor(id, 0), stateFor(id, 1), stateFor(id, 2)})
		}
	})
}

// stateFor is checkpoint id's j-th state: inline for j = 0, a file otherwise.
func stateFor(id int64, j int) []byte {
	if j == 0 {
		return []byte(fmt.Sprintf("small %d", id))
	}
	return bytes.Repeat([]byte(fmt.Sprintf("chk %d state %d;", id, j)), 50)
}

func TestNegativeCheckpointID(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		base := b.base(t)
		fsStorage, _ := newFsStorage(t, base, 0, 0)
		memStorage, err := cs.NewMemoryBackendCheckpointStorage(ctx, cs.NewJobID(), base, base, 0)
		require.NoError(t, err)
		for _, s := range []cs.CheckpointStorage{fsStorage, memStorage} {
			_, err := s.InitializeLocationForCheckpoint(ctx, -1)
			require.ErrorIs(t, err, fs.ErrInvalid)
			require.ErrorContains(t, err, "Illegal negative checkpoint id: -1.")
			_, err = s.InitializeLocationForSavepoint(ctx, -2, base.String())
			require.ErrorContains(t, err, "Illegal negative checkpoint id: -2.")
			_, err = s.ResolveCheckpointStorageLocation(ctx, -3, cs.DefaultLocationReference())
			require.ErrorContains(t, err, "Illegal negative checkpoint id: -3.")
		}
		_, err = (&cs.CheckpointMetadata{CheckpointID: -4}).MarshalBinary()
		require.ErrorContains(t, err, "Illegal negative checkpoint id: -4.")
	})
}

func TestResolveCheckpointErrors(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		base := b.base(t)
		s, _ := newFsStorage(t, base, 0, 0)

		_, err := s.ResolveCheckpoint(ctx, "")
		require.ErrorIs(t, err, fs.ErrInvalid)
		require.ErrorContains(t, err, "empty checkpoint pointer")

		missing := base.Join("no-such-checkpoint").String()
		_, err = s.ResolveCheckpoint(ctx, missing)
		require.ErrorIs(t, err, fs.ErrNotExist)
		require.ErrorContains(t, err, "Cannot find checkpoint or savepoint file/directory '"+missing+"' on file system '"+base.Scheme()+"'.")
		_, _, err = cs.LoadCheckpoint(ctx, missing)
		require.ErrorIs(t, err, fs.ErrNotExist)

		// a directory without _metadata (a checkpoint in progress, with state)
		loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
		require.NoError(t, err)
		writeState(t, loc, cs.Exclusive, pattern(10, 1), 0)
		dir := loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()
		_, err = s.ResolveCheckpoint(ctx, dir.String())
		require.ErrorIs(t, err, fs.ErrNotExist)
		require.ErrorContains(t, err, "Cannot find meta data file '_metadata' in directory '"+dir.String()+
			"'. Please try to load the checkpoint/savepoint directly from the metadata file instead of the directory.")

		_, err = s.ResolveCheckpoint(ctx, "1bad-scheme://x/y")
		require.ErrorIs(t, err, fs.ErrInvalid)
		require.ErrorContains(t, err, "is not a valid file URI")

		_, err = s.ResolveCheckpoint(ctx, "nosuchscheme://x/y")
		require.ErrorIs(t, err, vfs.ErrUnsupportedScheme)
		require.ErrorContains(t, err, "Cannot access file system for checkpoint/savepoint path 'nosuchscheme://x/y'.")
	})
}

func TestCorruptedAndTruncatedMetadata(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		s, job := newFsStorage(t, b.base(t), testThreshold, 0)
		loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
		require.NoError(t, err)
		h := writeState(t, loc, cs.Exclusive, pattern(500, 1), 0)
		c, err := cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, 1, h, cs.NewByteStreamStateHandle("x", []byte("inline"))))
		require.NoError(t, err)
		mp := loc.(*cs.FsCheckpointStorageLocation).MetadataPath()
		fsys := fsOf(t, mp)
		good, err := vfs.ReadFile(ctx, fsys, mp)
		require.NoError(t, err)

		flipped := bytes.Clone(good)
		flipped[len(flipped)/2] ^= 0x40
		for name, data := range map[string][]byte{
			"truncated by one": good[:len(good)-1],
			"header only":      good[:10],
			"empty":            {},
			"bit flip":         flipped,
			"garbage":          []byte("this is not a checkpoint"),
			"trailing byte":    append(bytes.Clone(good), 0),
		} {
			require.NoError(t, vfs.WriteFile(ctx, fsys, mp, data, vfs.Overwrite), name)
			_, _, err := cs.LoadCheckpoint(ctx, c.ExternalPointer())
			require.ErrorIs(t, err, cs.ErrCorruptMetadata, name)
			require.ErrorContains(t, err, mp.String(), name)
			var pe *fs.PathError
			require.ErrorAs(t, err, &pe, name)
		}
		require.NoError(t, vfs.WriteFile(ctx, fsys, mp, good, vfs.Overwrite))
		_, _, err = cs.LoadCheckpoint(ctx, c.ExternalPointer())
		require.NoError(t, err)
	})
}

func TestFsStorageBadConfiguration(t *testing.T) {
	ctx := t.Context()
	base := memoryBackend.base(t)
	job := cs.NewJobID()
	for _, tc := range []struct {
		threshold, buffer int
		msg               string
	}{
		{-1, 0, "The threshold for file state size must be zero or larger."},
		{cs.MaxFileStateThreshold + 1, 0, "The threshold for file state size cannot be larger than 1048576"},
		{0, -1, "The write buffer size must be zero or larger."},
	} {
		_, err := cs.NewFsCheckpointStorage(ctx, job, base, vfs.Path{}, tc.threshold, tc.buffer)
		require.ErrorIs(t, err, fs.ErrInvalid)
		require.ErrorContains(t, err, tc.msg)
	}
	s, err := cs.NewFsCheckpointStorage(ctx, job, base, vfs.Path{}, cs.MaxFileStateThreshold, 0)
	require.NoError(t, err, "exactly the maximum threshold")
	require.Equal(t, cs.MaxFileStateThreshold, s.FileStateThreshold())

	_, err = cs.NewFsCheckpointStorage(ctx, job, vfs.Path{}, vfs.Path{}, 0, 0)
	require.ErrorIs(t, err, fs.ErrInvalid)
	_, err = cs.NewFsCheckpointStorage(ctx, job, mustPath(t, "nosuchscheme://a/b"), vfs.Path{}, 0, 0)
	require.ErrorIs(t, err, vfs.ErrUnsupportedScheme)
}

func TestFsMaxThresholdStaysInline(t *testing.T) {
	s, _ := newFsStorage(t, memoryBackend.base(t), cs.MaxFileStateThreshold, 0)
	loc, err := s.InitializeLocationForCheckpoint(t.Context(), 1)
	require.NoError(t, err)
	data := pattern(cs.MaxFileStateThreshold, 3)
	require.Equal(t, cs.KindInline, cs.KindOf(writeState(t, loc, cs.Exclusive, data, 4096)))
	require.Equal(t, cs.KindRelativeFile, cs.KindOf(writeState(t, loc, cs.Exclusive, append(data, 1), 0)))
}

var _ = assert.New
var _ = strings.Contains

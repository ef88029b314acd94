package checkpointstorage_test

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// vfskitJob writes two checkpoints of a job with vfskit's storage on base:
// shared state (absolute handles into shared/), exclusive files (relative)
// and inline state. It returns the job directory and the states in order.
func vfskitJob(t *testing.T, base vfs.Path, opts ...cs.Option) (vfs.Path, [][]byte) {
	t.Helper()
	s, err := cs.NewFsCheckpointStorage(t.Context(), cs.NewJobID(), base, vfs.Path{}, 100, 0, opts...)
	require.NoError(t, err)
	var want [][]byte
	for id := int64(1); id <= 2; id++ {
		loc, err := s.InitializeLocationForCheckpoint(t.Context(), id)
		require.NoError(t, err)
		states := [][]byte{pattern(1000, byte(id)), pattern(500, byte(id+10)), pattern(50, byte(id+20))}
		hs := []cs.StreamStateHandle{
			writeState(t, loc, cs.Shared, states[0], 0),
			writeState(t, loc, cs.Exclusive, states[1], 0),
			writeState(t, loc, cs.Exclusive, states[2], 0),
		}
		_, err = cs.FinalizeCheckpoint(t.Context(), loc, sampleMetadata(s.JobID(), id, hs...))
		require.NoError(t, err)
		want = states
	}
	return cs.JobCheckpointsDir(base, s.JobID()), want
}

// TestRelocateVfskitJob moves a whole job of vfskit's own format between
// memory:// authorities: the shared handles are rewritten, the metadata stays
// in vfskit's format (checksum and all), and the state restores byte for byte
// from the new place.
func TestRelocateVfskitJob(t *testing.T) {
	src, want := vfskitJob(t, memPath("memory://relocate-src/ckpt"))
	dst := memPath("memory://relocate-dst/elsewhere/job")
	r, err := cs.Relocate(t.Context(), src, dst)
	require.NoError(t, err)
	assert.Equal(t, 2, r.Rewritten, "one shared handle per checkpoint")
	assert.Len(t, r.Metadata, 2)
	m, _, err := cs.LoadCheckpoint(t.Context(), dst.Join("chk-2").String())
	require.NoError(t, err)
	assert.Equal(t, metadata.FormatVfskit, m.Format)
	checkRestored(t, m, want)
	for _, h := range m.Handles() {
		if fh, ok := h.(*cs.FileStateHandle); ok && cs.KindOf(h) == cs.KindFile {
			_, in := cs.PathMapping{Old: dst, New: dst}.Apply(fh.FilePath)
			assert.True(t, in, "%s is below the new place", fh.FilePath)
		}
	}
	inv, err := cs.TakeInventory(t.Context(), dst)
	require.NoError(t, err)
	require.Len(t, inv.Snapshots, 2)
	for _, s := range inv.Snapshots {
		assert.True(t, s.Completed)
		assert.Equal(t, metadata.FormatVfskit, s.Format)
	}
}

// TestRelocateRefusesEscapingRelativeReference: a crafted Flink _metadata
// whose relative reference leaves the checkpoint directory is refused before
// anything is written.
func TestRelocateRefusesEscapingRelativeReference(t *testing.T) {
	ctx := t.Context()
	src := memPath("memory://relocate-hostile/sp")
	fsys, err := vfs.DefaultRegistry().GetPath(ctx, src)
	require.NoError(t, err)
	m := flinkSavepoint(&metadata.RelativeFileStateHandle{RelativePath: "../../victim", Size: 1})
	data, err := metadata.Encode(m)
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(ctx, fsys, src.Join("_metadata"), data, vfs.NoOverwrite))
	require.NoError(t, vfs.WriteFile(ctx, fsys, src.Parent().Join("victim"), []byte("v"), vfs.NoOverwrite))
	dst := src.Parent().Join("dst")
	_, err = cs.Relocate(ctx, src, dst)
	var foreign *cs.ForeignReferencesError
	require.True(t, errors.As(err, &foreign), "%v", err)
	assert.Equal(t, "../../victim", foreign.Refs[0].Recorded)
	ok, err := vfs.Exists(ctx, fsys, dst)
	require.NoError(t, err)
	assert.False(t, ok, "nothing written")
}

// flinkSavepoint is a version 3 Flink savepoint with one operator whose
// subtask holds h as managed operator state.
func flinkSavepoint(h metadata.Handle) *metadata.Metadata {
	return &metadata.Metadata{Format: metadata.FormatFlink, Version: 3, CheckpointID: 7,
		Operators: []metadata.Operator{{Parallelism: 1, MaxParallelism: 1, Subtasks: []metadata.Subtask{{
			State: &metadata.SubtaskState{ManagedOperatorState: &metadata.OperatorStreamStateHandle{
				States:   []metadata.NamedState{{Name: "s", Offsets: []int64{0}}},
				Delegate: h,
			}},
		}}}}}
}

// failingFS fails every Create after the first n; the first failure runs
// onFail.
type failingFS struct {
	vfs.FileSystem
	n      atomic.Int32
	onFail sync.Once
	fail   func()
}

func (f *failingFS) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	if f.n.Add(-1) < 0 {
		f.onFail.Do(f.fail)
		return nil, vfs.NewPathError("create", p, fs.ErrPermission)
	}
	return f.FileSystem.Create(ctx, p, mode)
}

// TestRelocateFailureLeavesNothing: when the destination fails half-way, what
// was written there is removed and no _metadata was ever published; a file
// someone else wrote there meanwhile stays.
func TestRelocateFailureLeavesNothing(t *testing.T) {
	var broken *failingFS
	src, dst := memPath("memory://relocate-fail-src/ckpt"), memPath("memory://relocate-fail-dst/dst/job")
	other := dst.Join("shared", "someone-else")
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register("memory", func(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
		fsys, err := memfs.Factory(ctx, u)
		if err != nil || u.Host != dst.Authority() {
			return fsys, err
		}
		broken = &failingFS{FileSystem: fsys, fail: func() {
			if err := vfs.WriteFile(context.Background(), fsys, other, []byte("mine"), vfs.NoOverwrite); err != nil {
				panic(err)
			}
		}}
		broken.n.Store(3)
		return broken, nil
	}))
	src, _ = vfskitJob(t, src, cs.WithRegistry(reg))
	_, err := cs.Relocate(t.Context(), src, dst, cs.WithRegistry(reg))
	require.ErrorIs(t, err, fs.ErrPermission)
	var left []string
	require.NoError(t, vfs.Walk(t.Context(), broken, dst, func(st vfs.FileStatus, err error) error {
		if err == nil && !st.IsDir {
			left = append(left, st.Path.String())
		}
		return err
	}))
	assert.Equal(t, []string{other.String()}, left, "what was copied is gone, the other file stays")
	_, err = broken.List(t.Context(), dst.Join("chk-1"))
	require.ErrorIs(t, err, fs.ErrNotExist, "emptied directories are removed")
}

// TestRelocateRefusesDirectoryWithoutMetadata: a directory that holds no
// _metadata is not a checkpoint; nothing is copied.
func TestRelocateRefusesDirectoryWithoutMetadata(t *testing.T) {
	src := memPath("memory://relocate-nometa/dir")
	fsys, err := vfs.DefaultRegistry().GetPath(t.Context(), src)
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(t.Context(), fsys, src.Join("x"), []byte("x"), vfs.NoOverwrite))
	_, err = cs.Relocate(t.Context(), src, src.Parent().Join("dst"))
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "no _metadata below it")
}

// TestRelocateRewritesFileMergingPaths: a savepoint whose state is a segment
// of a merged file, with the task-owned and shared directories of Flink's
// file merging: all three absolute paths are rewritten for the new place,
// and the segment verifies there (its file must reach the segment's end).
func TestRelocateRewritesFileMergingPaths(t *testing.T) {
	ctx := t.Context()
	src := memPath("memory://relocate-fm/job")
	fsys, err := vfs.DefaultRegistry().GetPath(ctx, src)
	require.NoError(t, err)
	seg := src.Join("taskowned", "merged-1")
	require.NoError(t, vfs.WriteFile(ctx, fsys, seg, pattern(100, 1), vfs.NoOverwrite))
	m := flinkSavepoint(nil)
	m.Operators[0].Subtasks[0].State.ManagedOperatorState = &metadata.FileMergingOperatorStreamStateHandle{
		TaskOwnedDir: metadata.DirectoryStateHandle{Path: src.Join("taskowned").String()},
		SharedDir:    metadata.DirectoryStateHandle{Path: src.Join("shared").String()},
		States:       []metadata.NamedState{{Name: "s", Offsets: []int64{0}}},
		Delegate:     &metadata.SegmentFileStateHandle{Path: seg.String(), StartPos: 40, Size: 60, LogicalFileID: "l1"},
	}
	data, err := metadata.Encode(m)
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(ctx, fsys, src.Join("chk-3", "_metadata"), data, vfs.NoOverwrite))

	dst := memPath("memory://relocate-fm2/moved")
	r, err := cs.Relocate(ctx, src, dst)
	require.NoError(t, err)
	assert.Equal(t, 3, r.Rewritten)
	v := r.Verifications[0]
	require.True(t, v.OK(), v.Problems())
	fm := v.Metadata.Operators[0].Subtasks[0].State.ManagedOperatorState.(*metadata.FileMergingOperatorStreamStateHandle)
	assert.Equal(t, dst.Join("taskowned").String(), fm.TaskOwnedDir.Path)
	assert.Equal(t, dst.Join("shared").String(), fm.SharedDir.Path)
	assert.Equal(t, dst.Join("taskowned", "merged-1").String(), fm.Delegate.(*metadata.SegmentFileStateHandle).Path)
	assert.Equal(t, 3, v.Metadata.Version)

	// A segment reaching past the end of its file is named.
	dfs, err := vfs.DefaultRegistry().GetPath(ctx, dst)
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(ctx, dfs, dst.Join("taskowned", "merged-1"), pattern(99, 1), vfs.Overwrite))
	v, err = cs.VerifyCheckpoint(ctx, dst.Join("chk-3"))
	require.NoError(t, err)
	require.Len(t, v.Problems(), 1)
	assert.Equal(t, "size 99, expected at least 100", v.Problems()[0].Problem())
}

// allHostileNames are file names that look like URI syntax, escapes or
// whitespace; listings return them as they are.
var allHostileNames = []string{"a?b=1", "c#d", " sp ", "%41", "ü.sst", "x\\y", "__0x41__"}

// TestHostileNamesAuditAndRelocate: orphans with hostile names are reported
// and deleted as themselves, and relocation copies them byte for byte under
// the same names, on memory:// and file://.
func TestHostileNamesAuditAndRelocate(t *testing.T) {
	reg, _, bucket := countingRegistry(t)
	for _, base := range []vfs.Path{memPath("memory://hostile-audit/ckpt"), vfs.MustPath("file://" + t.TempDir()), vfs.MustPath("s3://" + bucket + "/ckpt")} {
		t.Run(base.Scheme(), func(t *testing.T) {
			ctx := t.Context()
			o := cs.WithRegistry(reg)
			var hostileNames []string
			for _, n := range allHostileNames {
				if base.Scheme() != "s3" || !strings.Contains(n, "\\") { // SeaweedFS turns '\' into '/'
					hostileNames = append(hostileNames, n)
				}
			}
			job, _ := vfskitJob(t, base, o)
			fsys, err := reg.GetPath(ctx, job)
			require.NoError(t, err)
			for i, n := range hostileNames {
				require.NoError(t, vfs.WriteFile(ctx, fsys, job.Join("shared", n), pattern(10+i, byte(i)), vfs.NoOverwrite))
			}
			dst := base.Parent().Join("hostile-moved", job.Name())
			r, err := cs.Relocate(ctx, job, dst, o)
			require.NoError(t, err)
			for i, n := range hostileNames {
				got, err := vfs.ReadFile(ctx, fsys, dst.Join("shared", n))
				require.NoError(t, err, n)
				assert.Equal(t, pattern(10+i, byte(i)), got, n)
			}
			assert.Equal(t, 2, r.Rewritten)

			a, err := cs.AuditJob(ctx, dst, o)
			require.NoError(t, err)
			names := map[string]bool{}
			for _, o := range a.Orphans {
				names[o.Name()] = true
			}
			for _, n := range hostileNames {
				assert.True(t, names[n], "%q reported", n)
			}
			assert.Len(t, a.Orphans, len(hostileNames))
			for i := range a.Orphans {
				a.Orphans[i].Deletable = true // as if they were old
			}
			deleted, err := cs.DeleteOrphans(ctx, a, o)
			require.NoError(t, err)
			assert.Len(t, deleted, len(hostileNames))
			v, err := cs.VerifyCheckpoint(ctx, dst.Join("chk-2"), o)
			require.NoError(t, err)
			assert.True(t, v.OK(), v.Problems())
			after, err := cs.AuditJob(ctx, dst, o)
			require.NoError(t, err)
			assert.Empty(t, after.Orphans)
		})
	}
}

// TestRelocateRefusesBrokenSource: a savepoint with a missing state file is
// not copied: the error names the file, and the destination stays empty.
func TestRelocateRefusesBrokenSource(t *testing.T) {
	src, _ := vfskitJob(t, memPath("memory://relocate-broken/ckpt"))
	v, err := cs.VerifyCheckpoint(t.Context(), src.Join("chk-2"))
	require.NoError(t, err)
	var gone vfs.Path
	for _, f := range v.Files {
		if f.Reference == metadata.Relative {
			gone = f.Path
		}
	}
	fsys, err := vfs.DefaultRegistry().GetPath(t.Context(), src)
	require.NoError(t, err)
	require.NoError(t, fsys.Delete(t.Context(), gone, false))
	dst := src.Parent().Join("moved")
	_, err = cs.Relocate(t.Context(), src, dst)
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), "missing: "+gone.String())
	ok, err := vfs.Exists(t.Context(), fsys, dst)
	require.NoError(t, err)
	assert.False(t, ok)
}

var memRuns atomic.Int64

// memPath returns s, a memory:// URI, with its authority made unique to the
// call, so that tests run again (-count) start from an empty memory://.
func memPath(s string) vfs.Path {
	p := vfs.MustPath(s)
	return vfs.MustPath("memory://" + p.Authority() + "-" + strconv.FormatInt(memRuns.Add(1), 10) + p.Path())
}

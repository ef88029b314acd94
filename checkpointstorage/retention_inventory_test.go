package checkpointstorage_test

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/fixtures"
	"github.com/vfskit/vfskit/layer/record"
	"github.com/vfskit/vfskit/vfs"
)

// writeCompleted writes completed checkpoints ids of s, each with one
// exclusive state file of pattern(40, id).
func writeCompleted(t *testing.T, s *cs.FsCheckpointStorage, ids ...int64) {
	t.Helper()
	for _, id := range ids {
		loc, err := s.InitializeLocationForCheckpoint(t.Context(), id)
		require.NoError(t, err)
		h := writeState(t, loc, cs.Exclusive, pattern(40, byte(id)), 0)
		_, err = cs.FinalizeCheckpoint(t.Context(), loc, sampleMetadata(s.JobID(), id, h))
		require.NoError(t, err)
	}
}

// checkpointIDs returns the ids of infos, in order.
func checkpointIDs(infos []cs.CheckpointInfo) []int64 {
	var ids []int64
	for _, info := range infos {
		ids = append(ids, info.CheckpointID)
	}
	return ids
}

// writeMixedJob writes, under base, the directory of Flink's job
// 494ff033ac9eadd8d03630bec6e3fb42 holding every kind of chk-N: vfskit's
// completed chk-1, chk-2, chk-3 and chk-8; chk-4, vfskit's with a bit
// flipped in its _metadata; chk-5 in progress (state, no _metadata); chk-6,
// the checkpoint Flink wrote (its _metadata references shared/ files by
// absolute paths of another machine, outside the job); chk-7, Flink's cut
// short; chk-9, whose _metadata is a directory; and Flink's shared/ files.
// It returns the job's directory.
func writeMixedJob(t *testing.T, base vfs.Path) vfs.Path {
	t.Helper()
	ctx := t.Context()
	src := filepath.Join(fixtures.FlinkMetadataDir(t), filepath.FromSlash(flinkJobFixture))
	job, err := cs.ParseJobID(filepath.Base(src))
	require.NoError(t, err)
	s, err := cs.NewFsCheckpointStorage(ctx, job, base, vfs.Path{}, 0, 0)
	require.NoError(t, err)
	jobDir := s.CheckpointsDirectory()
	fsys := fsOf(t, jobDir)
	writeCompleted(t, s, 1, 2, 3, 4, 8)
	p := cs.CheckpointDir(jobDir, 4).Join(cs.MetadataFileName)
	data, err := vfs.ReadFile(ctx, fsys, p)
	require.NoError(t, err)
	data[len(data)/2] ^= 1
	require.NoError(t, fsys.Delete(ctx, p, false))
	require.NoError(t, vfs.WriteFile(ctx, fsys, p, data, vfs.NoOverwrite))
	inProgress, err := s.InitializeLocationForCheckpoint(ctx, 5)
	require.NoError(t, err)
	writeState(t, inProgress, cs.Exclusive, pattern(40, 5), 0)
	err = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if err := vfs.WriteFile(ctx, fsys, jobDir.Join(parts...), data, vfs.NoOverwrite); err != nil {
			return err
		}
		if parts[0] != "chk-6" {
			return nil
		}
		if parts[1] == cs.MetadataFileName {
			data = data[:len(data)/2]
		}
		return vfs.WriteFile(ctx, fsys, jobDir.Join(append([]string{"chk-7"}, parts[1:]...)...), data, vfs.NoOverwrite)
	})
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(ctx, fsys, jobDir.Join("chk-9", cs.MetadataFileName, "x"), []byte("x"), vfs.NoOverwrite))
	return jobDir
}

// TestRetentionAgreesWithInventory: TakeInventory, ListCompletedCheckpoints
// and RetainCheckpoints decide alike which checkpoints of a job are completed
// (their _metadata decodes, vfskit's or Flink's), which are undecodable and
// which are in progress, on every backend; retention then deletes the old
// completed ones only, leaving the undecodable and in-progress ones, shared/
// and the files Flink's metadata names outside the job byte for byte.
func TestRetentionAgreesWithInventory(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		base := b.base(t)
		jobDir := writeMixedJob(t, base)

		inv, err := cs.TakeInventory(ctx, jobDir)
		require.NoError(t, err)
		var completed, undecodable, inProgress []int64
		for _, s := range inv.Snapshots {
			switch {
			case s.Completed:
				completed = append(completed, s.CheckpointID)
			case s.Err != nil:
				undecodable = append(undecodable, s.CheckpointID)
			default:
				inProgress = append(inProgress, s.CheckpointID)
			}
		}
		require.Equal(t, []int64{1, 2, 3, 6, 8}, completed)
		require.Equal(t, []int64{4, 7}, undecodable)
		require.Equal(t, []int64{5, 9}, inProgress)

		infos, err := cs.ListCompletedCheckpoints(ctx, jobDir)
		require.NoError(t, err)
		require.Equal(t, completed, checkpointIDs(infos), "ListCompletedCheckpoints lists what the inventory calls completed")
		for _, info := range infos {
			require.Positive(t, info.MetadataSize)
			require.False(t, info.ModTime.IsZero())
		}
		latest, err := cs.LatestCompletedCheckpoint(ctx, jobDir)
		require.NoError(t, err)
		require.Equal(t, int64(8), latest.CheckpointID)

		// Whatever retain, a dry run discards the completed ones but the
		// newest retain, and reports the undecodable ones as kept.
		for retain := 1; retain <= len(completed); retain++ {
			rs, err := cs.RetainCheckpoints(ctx, jobDir, retain, cs.WithDryRun())
			require.NoError(t, err)
			discarded, kept := []int64{}, []int64{}
			for _, r := range rs {
				if r.Undecodable != nil {
					kept = append(kept, r.CheckpointID)
					require.ErrorIs(t, r.Undecodable, cs.ErrCorruptMetadata)
				} else {
					discarded = append(discarded, r.CheckpointID)
				}
			}
			require.Equal(t, undecodable, kept, "retain %d", retain)
			require.Equal(t, append([]int64{}, completed[:len(completed)-retain]...), discarded, "retain %d", retain)
		}

		before := snapshot(t, base)
		rs, err := cs.RetainCheckpoints(ctx, jobDir, 1)
		require.NoError(t, err)
		require.Len(t, rs, 6, "4 discarded, 2 kept as undecodable")
		flink := rs[slices.IndexFunc(rs, func(r cs.DiscardReport) bool { return r.CheckpointID == 6 })]
		require.Len(t, flink.Outside, 3, "chk-6 names 3 shared files by absolute paths of another machine")
		for _, p := range flink.Outside {
			assert.True(t, strings.HasPrefix(p.String(), "file:///state/checkpoint/"), p.String())
		}
		want := map[string]string{}
		for k, v := range before {
			gone := false
			for _, id := range []int64{1, 2, 3, 6} {
				gone = gone || strings.HasPrefix(k, cs.CheckpointDir(jobDir, id).String()+"/")
			}
			if !gone {
				want[k] = v
			}
		}
		require.Equal(t, want, snapshot(t, base), "only chk-1, chk-2, chk-3 and chk-6 are deleted")

		inv, err = cs.TakeInventory(ctx, jobDir)
		require.NoError(t, err)
		var left []string
		for _, s := range inv.Snapshots {
			left = append(left, fmt.Sprintf("%d:%v", s.CheckpointID, s.Completed))
		}
		require.Equal(t, []string{"4:false", "5:false", "7:false", "8:true", "9:false"}, left)
	})
}

// TestRetainOnEveryFlinkFixture: retention over a job holding every _metadata
// Flink wrote among the fixtures (chk-1, chk-3, ...) and each one cut short
// (chk-2, chk-4, ...: undecodable) deletes every decodable one but the newest,
// and nothing else: not one undecodable checkpoint, not one file outside the
// job's directory, whatever the metadata names (hdfs:, file: paths of other
// machines, ...).
func TestRetainOnEveryFlinkFixture(t *testing.T) {
	ctx := t.Context()
	root, files := fixtures.FlinkMetadataFiles(t)
	base := memoryBackend.base(t)
	fsys := fsOf(t, base)
	jobDir := base.Join(cs.NewJobID().String())
	// Beside the job: files a hostile or foreign _metadata might name.
	require.NoError(t, vfs.WriteFile(ctx, fsys, base.Join("other-job", "shared", "f"), []byte("keep"), vfs.NoOverwrite))
	var decodable, cut []int64
	for i, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		id := int64(2*i + 1)
		require.NoError(t, vfs.WriteFile(ctx, fsys, cs.CheckpointDir(jobDir, id).Join(cs.MetadataFileName), data, vfs.NoOverwrite))
		require.NoError(t, vfs.WriteFile(ctx, fsys, cs.CheckpointDir(jobDir, id+1).Join(cs.MetadataFileName), data[:len(data)/2], vfs.NoOverwrite))
		decodable, cut = append(decodable, id), append(cut, id+1)
	}
	before := snapshot(t, base)

	rs, err := cs.RetainCheckpoints(ctx, jobDir, 1)
	require.NoError(t, err)
	var discarded, kept []int64
	for _, r := range rs {
		if r.Undecodable != nil {
			kept = append(kept, r.CheckpointID)
			continue
		}
		discarded = append(discarded, r.CheckpointID)
		for _, p := range r.Files {
			require.True(t, strings.HasPrefix(p.String(), jobDir.String()+"/"), "chk-%d: %s", r.CheckpointID, p)
		}
	}
	require.Equal(t, cut, kept, "every undecodable checkpoint is kept")
	require.Equal(t, decodable[:len(decodable)-1], discarded)

	want := map[string]string{}
	for k, v := range before {
		id, _ := cs.ParseCheckpointDirName(strings.Split(strings.TrimPrefix(k, jobDir.String()+"/"), "/")[0])
		if !strings.HasPrefix(k, jobDir.String()+"/") || id%2 == 0 || id == decodable[len(decodable)-1] {
			want[k] = v
		}
	}
	require.Equal(t, want, snapshot(t, base), "deleted: the decodable checkpoints but the newest, nothing else")
	for _, id := range cut {
		_, _, err := cs.LoadCheckpoint(ctx, cs.CheckpointDir(jobDir, id).String())
		require.ErrorIs(t, err, metadata.ErrCorrupt, "chk-%d", id)
	}
}

// TestRetainRequests counts what retention and listing ask of the store: one
// LIST of the job's directory and one read of each chk-N's _metadata (the
// one in progress included: that read finds none), no Stat, no _metadata
// read twice; listing takes each checkpoint's size and time from the stream
// that read its _metadata (vfs.StatStream; on an object store too: see
// TestListRequestsTakeStatusFromReads), so it adds no Stat either. Each
// checkpoint discarded adds one LIST of its directory and one delete per file
// listed (conditional) and per directory. When a checkpoint is to go, the
// base directory adds one LIST (each other job there one LIST and one read
// per snapshot: none here), and another snapshot in the job's directory one
// LIST and one read.
func TestRetainRequests(t *testing.T) {
	ctx := t.Context()
	mem := memfs.New()
	base := vfs.MustPath(mem.URI().JoinPath("checkpoints").String())
	s, _ := newFsStorage(t, base, 0, 0)
	writeCompleted(t, s, 1, 2, 3, 4)
	_, err := s.InitializeLocationForCheckpoint(ctx, 5)
	require.NoError(t, err)
	rec := record.New(mem)
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register(base.Scheme(), func(context.Context, *url.URL) (vfs.FileSystem, error) { return rec, nil }))
	jobDir := s.CheckpointsDirectory()

	_, err = cs.RetainCheckpoints(ctx, jobDir, 2, cs.WithRegistry(reg), cs.WithDryRun())
	require.NoError(t, err)
	require.Equal(t, map[string]int{record.OpList: 1 + 1, record.OpOpen: 5}, rec.Reset(), "dry run: the job's directory and the base")
	infos, err := cs.ListCompletedCheckpoints(ctx, jobDir, cs.WithRegistry(reg))
	require.NoError(t, err)
	require.Len(t, infos, 4)
	require.Equal(t, map[string]int{record.OpList: 1, record.OpOpen: 5}, rec.Reset(), "listing")
	rs, err := cs.RetainCheckpoints(ctx, jobDir, 2, cs.WithRegistry(reg))
	require.NoError(t, err)
	require.Len(t, rs, 2)
	require.Equal(t, map[string]int{record.OpList: 1 + 1 + 2, record.OpOpen: 5, record.OpDelete: 2 * 3}, rec.Reset(),
		"the job's directory and the base; each discard: a LIST of its directory, then _metadata, its state file and the directory")

	// Another snapshot in the job's directory: when a checkpoint is to go,
	// one LIST of its directory and one read of its _metadata more.
	writeCompleted(t, s, 6)
	data, err := sampleMetadata(s.JobID(), 6).MarshalBinary()
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(ctx, mem, jobDir.Join("savepoint-x", cs.MetadataFileName), data, vfs.NoOverwrite))
	rec.Reset()
	rs, err = cs.RetainCheckpoints(ctx, jobDir, 2, cs.WithRegistry(reg))
	require.NoError(t, err)
	require.Len(t, rs, 1)
	require.Equal(t, map[string]int{record.OpList: 1 + 1 + 1 + 1, record.OpOpen: 4 + 1, record.OpDelete: 3}, rec.Reset(),
		"the job's directory, the base, savepoint-x's, chk-3's; the _metadata of chk-3 to chk-6 and savepoint-x's")
}

// TestRetentionIgnoresLinkedCheckpoints: a chk-N that is a symbolic link to a
// directory elsewhere (file://) is not looked behind, by the inventory or by
// retention alike: not completed, not listed, and nothing behind it deleted,
// although it holds a _metadata that decodes.
func TestRetentionIgnoresLinkedCheckpoints(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	s, _ := newFsStorage(t, fileURI(filepath.Join(dir, "ckpt")), 0, 0)
	jobDir := s.CheckpointsDirectory()
	writeCompleted(t, s, 1, 2)
	elsewhere := filepath.Join(dir, "elsewhere")
	require.NoError(t, os.CopyFS(elsewhere, os.DirFS(filepath.FromSlash(cs.CheckpointDir(jobDir, 1).Path()))))
	require.NoError(t, os.Symlink(elsewhere, filepath.FromSlash(cs.CheckpointDir(jobDir, 3).Path())))
	before := snapshot(t, fileURI(elsewhere))

	inv, err := cs.TakeInventory(ctx, jobDir)
	require.NoError(t, err)
	require.Len(t, inv.Snapshots, 3)
	require.False(t, inv.Snapshots[2].Completed, "chk-3 is not looked behind")
	infos, err := cs.ListCompletedCheckpoints(ctx, jobDir)
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2}, checkpointIDs(infos))
	rs, err := cs.RetainCheckpoints(ctx, jobDir, 1)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	require.Equal(t, int64(1), rs[0].CheckpointID)
	require.Equal(t, before, snapshot(t, fileURI(elsewhere)))
	require.True(t, exists(t, cs.CheckpointDir(jobDir, 2).Join(cs.MetadataFileName)))
}

// TestLatestSkipsUndecodable: the latest completed checkpoint is the newest
// whose _metadata decodes; with none, there is none.
func TestLatestSkipsUndecodable(t *testing.T) {
	ctx := t.Context()
	s, _ := newFsStorage(t, memoryBackend.base(t), 0, 0)
	jobDir := s.CheckpointsDirectory()
	fsys := fsOf(t, jobDir)
	require.NoError(t, vfs.WriteFile(ctx, fsys, cs.CheckpointDir(jobDir, 2).Join(cs.MetadataFileName), []byte("junk"), vfs.NoOverwrite))
	_, err := cs.LatestCompletedCheckpoint(ctx, jobDir)
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.ErrorContains(t, err, "no chk-N directory with a _metadata that decodes")
	writeCompleted(t, s, 1)
	latest, err := cs.LatestCompletedCheckpoint(ctx, jobDir)
	require.NoError(t, err)
	require.Equal(t, int64(1), latest.CheckpointID)
}

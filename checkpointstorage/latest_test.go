package checkpointstorage_test

import (
	"context"
	"io/fs"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gocloud.dev/blob/memblob"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/memfs"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/layer/record"
	"github.com/vfskit/vfskit/vfs"
)

// TestLatestAgreesWithList: on every backend, over a job mixing vfskit's
// and Flink's completed checkpoints with bit-flipped, cut-short and
// in-progress ones, LatestCompletedCheckpoint (newest first, stopping at the
// first _metadata that decodes) answers what ListCompletedCheckpoints' last
// entry is, after each deletion of the newest chk-N in turn, down to no
// checkpoint at all; and each listed size and time (taken from the read of
// _metadata where the store tells them) are Stat's.
func TestLatestAgreesWithList(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		jobDir := writeMixedJob(t, b.base(t))
		fsys := fsOf(t, jobDir)
		var latests []int64
		for ids := []int64{9, 8, 7, 6, 5, 4, 3, 2, 1}; ; ids = ids[1:] {
			infos, err := cs.ListCompletedCheckpoints(ctx, jobDir)
			require.NoError(t, err)
			requireStatted(t, fsys, infos)
			latest, err := cs.LatestCompletedCheckpoint(ctx, jobDir)
			if len(infos) == 0 {
				require.ErrorIs(t, err, fs.ErrNotExist)
				break
			}
			require.NoError(t, err)
			require.Equal(t, infos[len(infos)-1], latest)
			latests = append(latests, latest.CheckpointID)
			require.NoError(t, fsys.Delete(ctx, cs.CheckpointDir(jobDir, ids[0]), true))
		}
		// chk-9 (in progress), chk-7 and chk-4 (undecodable) and chk-5 (in
		// progress) are never the latest; chk-6 is Flink's.
		require.Equal(t, []int64{8, 8, 6, 6, 3, 3, 3, 2, 1}, latests)
	})
}

// requireStatted checks that each listed checkpoint's size and time are
// what Stat says of its _metadata.
func requireStatted(t *testing.T, fsys vfs.FileSystem, infos []cs.CheckpointInfo) {
	t.Helper()
	for _, info := range infos {
		st, err := fsys.Stat(t.Context(), info.MetadataPath)
		require.NoError(t, err)
		require.Equal(t, st.Size, info.MetadataSize, "chk-%d", info.CheckpointID)
		require.True(t, st.ModTime.Equal(info.ModTime), "chk-%d: listed %v, Stat %v", info.CheckpointID, info.ModTime, st.ModTime)
	}
}

// firstIDs returns the checkpoint ids 1 to n.
func firstIDs(n int) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	return ids
}

// memBlobFS returns a blobfs file system over a gocloud mem:// bucket (an
// object store whose streams tell their status), registered for this test
// under scheme, and a record layer over it registered under the same scheme
// on a private registry.
func memBlobFS(t *testing.T, scheme string) (vfs.Path, *record.FS, *vfs.Registry) {
	t.Helper()
	fsys, err := blobfs.New(memblob.OpenBucket(nil), blobfs.Options{Scheme: scheme, Authority: "b"})
	require.NoError(t, err)
	vfs.RegisterTest(t, scheme, func(context.Context, *url.URL) (vfs.FileSystem, error) { return fsys, nil })
	rec := record.New(fsys)
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register(scheme, func(context.Context, *url.URL) (vfs.FileSystem, error) { return rec, nil }))
	return vfs.MustPath(scheme + "://b/checkpoints"), rec, reg
}

// TestLatestReadsTheNewestOnly: with 50 completed checkpoints, finding the
// latest lists the job's directory once and reads one _metadata, not 50;
// newer checkpoints in progress or undecodable cost one read each. The
// stream that read _metadata tells its size and time (vfs.StatStream), on
// memory:// as on an object store (gocloud's mem:// bucket): no Stat.
func TestLatestReadsTheNewestOnly(t *testing.T) {
	ctx := t.Context()
	mem := memfs.New()
	memBase := vfs.MustPath(mem.URI().JoinPath("checkpoints").String())
	memRec := record.New(mem)
	memReg := vfs.NewRegistry()
	require.NoError(t, memReg.Register(memBase.Scheme(), func(context.Context, *url.URL) (vfs.FileSystem, error) { return memRec, nil }))
	blobBase, blobRec, blobReg := memBlobFS(t, "memblob-latest")
	for _, c := range []struct {
		name string
		base vfs.Path
		rec  *record.FS
		reg  *vfs.Registry
	}{
		{"memory", memBase, memRec, memReg},
		{"memblob", blobBase, blobRec, blobReg},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newFsStorage(t, c.base, 0, 0)
			ids := firstIDs(50)
			writeCompleted(t, s, ids...)
			jobDir := s.CheckpointsDirectory()
			c.rec.Reset()
			latest, err := cs.LatestCompletedCheckpoint(ctx, jobDir, cs.WithRegistry(c.reg))
			require.NoError(t, err)
			require.Equal(t, int64(50), latest.CheckpointID)
			for _, call := range c.rec.Calls() {
				if call.Op != record.OpList {
					require.True(t, strings.HasSuffix(call.Path.String(), "/chk-50/_metadata"), call.Path.String())
				}
			}
			require.Equal(t, map[string]int{record.OpList: 1, record.OpOpen: 1}, c.rec.Reset())

			// chk-51 in progress, chk-52 undecodable: read, skipped.
			fsys := fsOf(t, jobDir)
			loc, err := s.InitializeLocationForCheckpoint(ctx, 51)
			require.NoError(t, err)
			writeState(t, loc, cs.Exclusive, pattern(40, 51), 0)
			require.NoError(t, vfs.WriteFile(ctx, fsys, cs.CheckpointDir(jobDir, 52).Join(cs.MetadataFileName), []byte("junk"), vfs.NoOverwrite))
			c.rec.Reset()
			latest, err = cs.LatestCompletedCheckpoint(ctx, jobDir, cs.WithRegistry(c.reg))
			require.NoError(t, err)
			require.Equal(t, int64(50), latest.CheckpointID)
			got := c.rec.Reset()
			require.Equal(t, 3, got[record.OpOpen], "chk-52, chk-51, chk-50: %v", got)
			require.Zero(t, got[record.OpStat], "%v", got)
		})
	}
}

// TestListRequestsTakeStatusFromReads: listing the completed checkpoints of
// an object store lists the job's directory once and reads each chk-N's
// _metadata once; the sizes and times come from those reads, with no Stat.
func TestListRequestsTakeStatusFromReads(t *testing.T) {
	ctx := t.Context()
	base, rec, reg := memBlobFS(t, "memblob-list")
	s, _ := newFsStorage(t, base, 0, 0)
	writeCompleted(t, s, 1, 2, 3, 4)
	loc, err := s.InitializeLocationForCheckpoint(ctx, 5)
	require.NoError(t, err)
	writeState(t, loc, cs.Exclusive, pattern(40, 5), 0)
	jobDir := s.CheckpointsDirectory()

	rec.Reset()
	infos, err := cs.ListCompletedCheckpoints(ctx, jobDir, cs.WithRegistry(reg))
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2, 3, 4}, checkpointIDs(infos))
	require.Equal(t, map[string]int{record.OpList: 1, record.OpOpen: 5}, rec.Reset())
	requireStatted(t, fsOf(t, jobDir), infos)
}

// TestListAndLatestRequestsOnS3 counts the HTTP requests of listing the
// completed checkpoints of a job holding 50 of them and finding the latest on
// S3 (SeaweedFS): one LIST and one GET per _metadata (no HEAD) for the list,
// one LIST and one GET for the latest.
func TestListAndLatestRequestsOnS3(t *testing.T) {
	ctx := t.Context()
	reg, counter, bucket := countingRegistry(t)
	s, _ := newFsStorage(t, vfs.MustPath("s3://"+bucket+"/checkpoints"), 0, 0, cs.WithRegistry(reg))
	ids := firstIDs(50)
	writeCompleted(t, s, ids...)
	jobDir := s.CheckpointsDirectory()

	counter.Reset()
	infos, err := cs.ListCompletedCheckpoints(ctx, jobDir, cs.WithRegistry(reg))
	require.NoError(t, err)
	require.Equal(t, ids, checkpointIDs(infos))
	require.Equal(t, map[string]int{s3test.OpListObjectsV2: 1, s3test.OpGetObject: 50}, counter.Counts())
	fsys, err := reg.GetPath(ctx, jobDir)
	require.NoError(t, err)
	requireStatted(t, fsys, infos[:3])

	counter.Reset()
	latest, err := cs.LatestCompletedCheckpoint(ctx, jobDir, cs.WithRegistry(reg))
	require.NoError(t, err)
	require.Equal(t, infos[49], latest)
	require.Equal(t, map[string]int{s3test.OpListObjectsV2: 1, s3test.OpGetObject: 1}, counter.Counts())
}

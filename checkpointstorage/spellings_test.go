package checkpointstorage_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/backends/s3"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// spellingRegistry serves file:// and memory:// with their location rules.
func spellingRegistry(t *testing.T) *vfs.Registry {
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register("file", local.Factory))
	require.NoError(t, reg.RegisterIdentity("file", local.Identity))
	require.NoError(t, reg.Register("memory", memfs.Factory))
	return reg
}

// TestOneLocationManySpellings: a job written through one spelling of its
// base (s3a:// or s3p:// for s3://, the real path of a linked directory,
// abfss:// for azblob:// on Azurite) is retained (RetainCheckpoints),
// collected (gc --retain 1) and audited
// with --delete through the other, with a second job restored from its chk-1
// in CLAIM mode (it references a file of that chk-1). Nothing a completed
// checkpoint references is deleted: chk-1 stays for the other job, both
// checkpoints verify and restore. Regression test: each compared the
// references as strings and deleted the files they name.
func TestOneLocationManySpellings(t *testing.T) {
	t.Run("link", func(t *testing.T) {
		root, err := filepath.EvalSymlinks(t.TempDir())
		require.NoError(t, err)
		disk := filepath.Join(root, "mnt", "disk1")
		require.NoError(t, os.MkdirAll(disk, 0o755))
		require.NoError(t, os.Symlink(disk, filepath.Join(root, "data")))
		checkSpellings(t, spellingRegistry(t), fileURI(filepath.Join(disk, "base")), fileURI(filepath.Join(root, "data", "base")))
	})
	for _, alias := range []string{"s3a", "s3p"} {
		t.Run(alias, func(t *testing.T) {
			srv := s3test.SeaweedFS(t)
			reg := spellingRegistry(t)
			for _, s := range s3.Schemes {
				require.NoError(t, reg.Register(s, s3.Factory(s3.Options{Client: srv.Client(nil)})))
				require.NoError(t, reg.RegisterIdentity(s, s3.Identity))
			}
			bucket := srv.NewBucket(t)
			checkSpellings(t, reg, vfs.MustPath(alias+"://"+bucket+"/checkpoints"), vfs.MustPath("s3://"+bucket+"/checkpoints"))
		})
	}
	t.Run("abfss", func(t *testing.T) {
		srv := azuritetest.Shared(t)
		container, err := srv.NewContainer(t.Context())
		require.NoError(t, err)
		opts := azblob.Options{ConnectionString: srv.ConnectionString}
		reg := spellingRegistry(t)
		require.NoError(t, reg.Register(azblob.Scheme, azblob.Factory(opts)))
		require.NoError(t, reg.Register("abfss", azblob.HadoopFactory(opts)))
		require.NoError(t, reg.RegisterIdentity(azblob.Scheme, azblob.IdentityOf(opts)))
		require.NoError(t, reg.RegisterIdentity("abfss", azblob.IdentityOf(opts)))
		checkSpellings(t, reg, vfs.MustPath("abfss://"+container+"@"+azuritetest.Account+".dfs.core.windows.net/checkpoints"),
			vfs.MustPath("azblob://"+container+"/checkpoints"))
	})
}

func checkSpellings(t *testing.T, reg *vfs.Registry, written, through vfs.Path) {
	ctx := t.Context()
	with := cs.WithRegistry(reg)
	jobA, want := vfskitJob(t, written, with) // chk-1, chk-2: shared (absolute) and exclusive files
	old, _, err := cs.LoadCheckpoint(ctx, jobA.Join("chk-1").String(), with)
	require.NoError(t, err)
	var claimed *cs.FileStateHandle
	for _, h := range old.Handles() {
		if rh, ok := h.(*cs.RelativeFileStateHandle); ok && rh.StateSize() == 500 {
			claimed = &rh.FileStateHandle // B records it by its absolute path
		}
	}
	require.NotNil(t, claimed)
	claimedWant := readHandle(t, claimed)
	sB, err := cs.NewFsCheckpointStorage(ctx, cs.NewJobID(), written, vfs.Path{}, 100, 0, with)
	require.NoError(t, err)
	loc, err := sB.InitializeLocationForCheckpoint(ctx, 3)
	require.NoError(t, err)
	_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(sB.JobID(), 3, claimed))
	require.NoError(t, err)
	jobB := cs.JobCheckpointsDir(through, sB.JobID())

	viaA := through.Join(jobA.Name())
	reports, err := cs.RetainCheckpoints(ctx, viaA, 1, with)
	require.NoError(t, err)
	require.Len(t, reports, 1)
	assert.Contains(t, reports[0].Kept, sB.JobID().String(), "retention keeps chk-1: the other job references its file")
	jobs, err := cs.CollectGarbage(ctx, viaA, 1, with)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.Len(t, jobs[0].Reports, 1)
	assert.Equal(t, int64(1), jobs[0].Reports[0].CheckpointID)
	assert.Contains(t, jobs[0].Reports[0].Kept, sB.JobID().String(), "chk-1 stays: the other job references its file")

	a, err := cs.AuditJob(ctx, viaA, with)
	require.NoError(t, err)
	assert.Empty(t, a.Missing())
	_, err = cs.DeleteOrphans(ctx, a, with)
	require.NoError(t, err)
	for _, chk := range []vfs.Path{viaA.Join("chk-1"), viaA.Join("chk-2"), jobB.Join("chk-3")} {
		v, err := cs.VerifyCheckpoint(ctx, chk, with)
		require.NoError(t, err, chk)
		assert.Empty(t, v.Problems(), "%s lost files", chk)
	}
	m, _, err := cs.LoadCheckpoint(ctx, viaA.Join("chk-2").String(), with)
	require.NoError(t, err)
	checkRestored(t, m, want)
	m, _, err = cs.LoadCheckpoint(ctx, jobB.Join("chk-3").String(), with)
	require.NoError(t, err)
	checkRestored(t, m, [][]byte{claimedWant})
}

// TestUnresolvableReferenceBlocksItsName: another job's _metadata names a
// file by a spelling vfskit cannot resolve (hdfs://, not registered). A file
// of the same name is then never deleted: the audit refuses the orphan and gc
// keeps the checkpoint holding one, each naming the reference and suggesting
// a path mapping. Regression test: both deleted it.
func TestUnresolvableReferenceBlocksItsName(t *testing.T) {
	ctx := t.Context()
	reg := spellingRegistry(t)
	with := cs.WithRegistry(reg)
	base := fileURI(filepath.Join(t.TempDir(), "base"))
	jobA, _ := vfskitJob(t, base, with)
	fsys, err := reg.GetPath(ctx, base)
	require.NoError(t, err)
	orphan := jobA.Join("shared", "0a1b2c3d-4e5f-6789-abcd-ef0123456789")
	require.NoError(t, vfs.WriteFile(ctx, fsys, orphan, []byte("sst"), vfs.NoOverwrite))
	old := time.Now().Add(-time.Hour) // older than chk-2: not a checkpoint in progress
	require.NoError(t, os.Chtimes(filepath.FromSlash(orphan.Path()), old, old))
	chk1 := fileNames(t, jobA.Join("chk-1"))
	var exclusive string
	for _, n := range chk1 {
		if n != cs.MetadataFileName {
			exclusive = n
		}
	}
	require.NotEmpty(t, exclusive)

	jobB := cs.JobCheckpointsDir(base, cs.NewJobID())
	m := &metadata.Metadata{CheckpointID: 3, Operators: []metadata.Operator{{UID: "op", Parallelism: 1, MaxParallelism: 1, Subtasks: []metadata.Subtask{{Handles: []metadata.Handle{
		&metadata.FileStateHandle{Path: "hdfs://namenode:8020/flink/checkpoints/" + jobA.Name() + "/shared/" + orphan.Name(), Size: 3, Shared: true},
		&metadata.FileStateHandle{Path: "hdfs://namenode:8020/flink/checkpoints/" + jobA.Name() + "/chk-1/" + exclusive, Size: 500},
	}}}}}}
	data, err := metadata.Encode(m)
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(ctx, fsys, jobB.Join("chk-3", cs.MetadataFileName), data, vfs.NoOverwrite))

	a, err := cs.AuditJob(ctx, jobA, with)
	require.NoError(t, err)
	var found bool
	for _, o := range a.Orphans {
		if o.Path == orphan {
			found = true
			assert.False(t, o.Deletable)
			assert.Contains(t, o.Reason, "hdfs://namenode:8020/flink/checkpoints/"+jobA.Name()+"/shared/"+orphan.Name())
			assert.Contains(t, o.Reason, "--map")
		}
	}
	require.True(t, found, "the planted file is an orphan")
	_, err = cs.DeleteOrphans(ctx, a, with)
	require.NoError(t, err)
	assert.True(t, exists(t, orphan))

	for _, dry := range []bool{true, false} {
		opts := []cs.Option{with}
		if dry {
			opts = append(opts, cs.WithDryRun())
		}
		jobs, err := cs.CollectGarbage(ctx, jobA, 1, opts...)
		require.NoError(t, err)
		require.Len(t, jobs, 1)
		require.Len(t, jobs[0].Reports, 1)
		kept := jobs[0].Reports[0].Kept
		assert.Contains(t, kept, "hdfs://namenode:8020/flink/checkpoints/"+jobA.Name()+"/chk-1/"+exclusive)
		assert.Contains(t, kept, "--map")
	}
	reports, err := cs.RetainCheckpoints(ctx, jobA, 1, with)
	require.NoError(t, err)
	require.Len(t, reports, 1)
	assert.True(t, strings.Contains(reports[0].Kept, "cannot resolve"), reports[0].Kept)
	assert.ElementsMatch(t, chk1, fileNames(t, jobA.Join("chk-1")), "nothing of chk-1 was deleted")
}

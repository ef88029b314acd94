package checkpointstorage_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// bigJob writes a job directory of 1,000 files on S3: chk-1 with its
// _metadata and 9 relative state files, and shared/ with 990 files of which
// the checkpoint references 495 (so 495 are orphans).
func bigJob(t testing.TB) (*vfs.Registry, *s3test.Counter, vfs.Path) {
	reg, counter, bucket := countingRegistry(t)
	job := vfs.MustPath("s3://" + bucket + "/checkpoints/" + cs.NewJobID().String())
	fsys, err := reg.GetPath(t.Context(), job)
	require.NoError(t, err)
	m := &metadata.Metadata{CheckpointID: 1, Operators: []metadata.Operator{{UID: "op", Parallelism: 1, MaxParallelism: 1, Subtasks: []metadata.Subtask{{}}}}}
	st := &m.Operators[0].Subtasks[0]
	for i := range 9 {
		name := fmt.Sprintf("state-%d", i)
		require.NoError(t, vfs.WriteFile(t.Context(), fsys, job.Join("chk-1", name), []byte("xx"), vfs.NoOverwrite))
		st.Handles = append(st.Handles, &metadata.RelativeFileStateHandle{RelativePath: name, Size: 2})
	}
	for i := range 990 {
		p := job.Join("shared", fmt.Sprintf("sst-%04d", i))
		require.NoError(t, vfs.WriteFile(t.Context(), fsys, p, []byte("abc"), vfs.NoOverwrite))
		if i%2 == 0 {
			st.Handles = append(st.Handles, &metadata.FileStateHandle{Path: p.String(), Size: 3, Shared: true})
		}
	}
	data, err := metadata.Encode(m)
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(t.Context(), fsys, job.Join("chk-1", cs.MetadataFileName), data, vfs.NoOverwrite))
	return reg, counter, job
}

// TestAuditRequestsOnS3: auditing a 1,000-file job directory on S3 costs one
// LIST per directory (the job's, chk-1, shared/, and the base directory, for
// other jobs' references) and one GET of the _metadata: no request per file.
func TestAuditRequestsOnS3(t *testing.T) {
	reg, counter, job := bigJob(t)
	counter.Reset()
	a, err := cs.AuditJob(t.Context(), job, cs.WithRegistry(reg))
	require.NoError(t, err)
	assert.Equal(t, map[string]int{s3test.OpListObjectsV2: 4, s3test.OpGetObject: 1}, counter.Counts())
	assert.Equal(t, 1000, a.Files)
	assert.Equal(t, 9+495, len(a.Referenced))
	assert.Empty(t, a.Missing())
	assert.Equal(t, 495, len(a.Orphans))
	assert.Equal(t, int64(495*3), a.OrphanBytes)
}

// TestInventoryRequestsOnS3: taking stock of a base directory on S3 lists
// each directory once (the base, the job, chk-1, shared/) and reads the
// _metadata once.
func TestInventoryRequestsOnS3(t *testing.T) {
	reg, counter, job := bigJob(t)
	counter.Reset()
	inv, err := cs.TakeInventory(t.Context(), job.Parent(), cs.WithRegistry(reg))
	require.NoError(t, err)
	assert.Equal(t, map[string]int{s3test.OpListObjectsV2: 4, s3test.OpGetObject: 1}, counter.Counts())
	require.Len(t, inv.Jobs, 1)
	assert.Equal(t, 1000, inv.Jobs[0].Files)
	require.Len(t, inv.Snapshots, 1)
	assert.True(t, inv.Snapshots[0].Completed)
	assert.Equal(t, 10, inv.Snapshots[0].Files)
}

// BenchmarkAuditS3 audits a 1,000-file job directory on S3 (SeaweedFS) and
// reports the requests each audit sends.
func BenchmarkAuditS3(b *testing.B) {
	reg, counter, job := bigJob(b)
	counter.Reset()
	n := 0
	for b.Loop() {
		_, err := cs.AuditJob(b.Context(), job, cs.WithRegistry(reg))
		require.NoError(b, err)
		n++
	}
	b.ReportMetric(float64(counter.Total())/float64(n), "requests/op")
	b.ReportMetric(float64(counter.Count(s3test.OpListObjectsV2))/float64(n), "LISTs/op")
	b.ReportMetric(float64(counter.Count(s3test.OpHeadObject))/float64(n), "HEADs/op")
}

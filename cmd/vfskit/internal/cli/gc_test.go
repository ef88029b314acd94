package cli

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// TestGCJobs checks how gc splits its work: checkpoints grouped by job
// directory, incomplete ones removed only when older than the newest completed
// one (newer ones may be in progress), a job with nothing completed left alone,
// and savepoints never touched. Which completed checkpoints go is
// RetainCheckpoints' rule, tested in checkpointstorage.
func TestGCJobs(t *testing.T) {
	row := func(job string, id int64, completed bool) checkpointRow {
		return checkpointRow{job: job, id: fmt.Sprint(id), idNum: id, completed: completed,
			dir: vfs.MustPath("memory://gc/" + job).Join(fmt.Sprintf("chk-%d", id))}
	}
	rows := []checkpointRow{
		row("a", 1, true), row("a", 2, false), row("a", 3, true), row("a", 4, true), row("a", 5, true), row("a", 6, false),
		row("b", 7, false), row("b", 8, false),
		row("c", 1, true),
		{job: "a", id: "9", idNum: -1, savepoint: true, completed: true, dir: vfs.MustPath("memory://gc/a/savepoint-x")},
	}
	jobs := gcJobs(rows)
	require.Len(t, jobs, 2)
	assert.Equal(t, vfs.MustPath("memory://gc/a"), jobs[0].dir)
	assert.Len(t, jobs[0].rows, 6)
	require.Len(t, jobs[0].leftovers, 1)
	assert.Equal(t, "2", jobs[0].leftovers[0].id)
	assert.Equal(t, vfs.MustPath("memory://gc/c"), jobs[1].dir)
	assert.Empty(t, jobs[1].leftovers)
}

func TestCheckpointsOnEmptyDirectory(t *testing.T) {
	dir := "file://" + t.TempDir()
	r := vfskit(t, "checkpoints", "list", dir)
	assert.Equal(t, ExitOK, r.code)
	assert.Empty(t, r.stdout)
	assert.Equal(t, "no checkpoints or savepoints in "+dir+"\n", r.stderr)
	assert.Equal(t, "removed 0, kept 0\n", ok(t, "checkpoints", "gc", dir, "--retain", "1"))
	assert.Contains(t, fails(t, ExitFailure, "checkpoints", "inspect", dir), "Cannot find meta data file '_metadata'")
}

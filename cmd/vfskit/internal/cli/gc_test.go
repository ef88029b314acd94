package cli

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGCPlan checks the retention rule per job: the newest retain completed
// checkpoints stay, older completed ones go, incomplete ones go only when older
// than the newest completed one (newer ones may be in progress), a job with
// nothing completed is left alone, and savepoints are never removed.
func TestGCPlan(t *testing.T) {
	row := func(job string, id int64, completed bool) checkpointRow {
		return checkpointRow{job: job, id: fmt.Sprint(id), idNum: id, completed: completed}
	}
	rows := []checkpointRow{
		row("a", 1, true), row("a", 2, false), row("a", 3, true), row("a", 4, true), row("a", 5, true), row("a", 6, false),
		row("b", 7, false), row("b", 8, false),
		row("c", 1, true),
		{job: "a", id: "9", idNum: -1, savepoint: true, completed: true},
	}
	name := func(rs []checkpointRow) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.job+"/"+r.id)
		}
		return out
	}
	assert.Equal(t, []string{"a/1", "a/2", "a/3"}, name(gcPlan(rows, 2)))
	assert.Equal(t, []string{"a/1", "a/2", "a/3", "a/4"}, name(gcPlan(rows, 1)))
	assert.Equal(t, []string{"a/2"}, name(gcPlan(rows, 4)), "fewer completed than retain: only failed leftovers go")
	assert.Equal(t, []string{"a/2"}, name(gcPlan(rows, 100)))
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

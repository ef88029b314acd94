package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/fixtures"
	"github.com/vfskit/vfskit/vfs"
)

// TestCheckpointsOnDirectoriesWithoutCheckpoints: on a directory that holds
// no checkpoint (empty, holding other files, a job's directory without any,
// one checkpoint's directory for gc and audit) every checkpoint command says
// in a sentence what it found instead of printing zero counts.
func TestCheckpointsOnDirectoriesWithoutCheckpoints(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string, files ...string) string {
		d := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(d, 0o755))
		for _, f := range files {
			p := filepath.Join(d, f)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte("data"), 0o644))
		}
		return "file://" + filepath.ToSlash(d)
	}
	empty := mk("empty")
	other := mk("other", "notes.txt", "sub/more.txt")
	job := mk("base/"+checkpointstorage.NewJobID().String(), "shared/x")
	base := "file://" + filepath.ToSlash(filepath.Join(root, "base"))
	for _, row := range []struct {
		args   []string
		code   int
		stdout string // the sentence standard output must hold ("": empty)
		stderr string // the sentence standard error must hold ("": empty)
	}{
		{args: []string{"list", empty}, stderr: "no checkpoints or savepoints in " + empty + ": it holds no directories"},
		{args: []string{"list", other}, stderr: "no checkpoints or savepoints in " + other + ": not a checkpoint directory (no directory in it holds a _metadata; 1 directory skipped, named above)"},
		{args: []string{"list", base}, stderr: "no checkpoints or savepoints in " + base + ": its 1 job directory holds none yet"},
		{args: []string{"verify", empty}, code: ExitFailure, stderr: "vfskit: checkpoints verify " + empty + ": not a checkpoint or savepoint directory: it holds no _metadata, nor does any directory in it"},
		{args: []string{"inspect", empty}, code: ExitFailure, stderr: "vfskit: checkpoints inspect " + empty + ": not a checkpoint or savepoint directory: it holds no _metadata, nor does any directory in it (checkpoints list " + empty + " shows what it holds)"},
		{args: []string{"verify", other}, code: ExitFailure, stderr: "not a checkpoint or savepoint directory"},
		{args: []string{"audit", empty}, stdout: "nothing to audit in " + empty + ": it holds no files and no checkpoint or savepoint directory"},
		{args: []string{"audit", other}, stdout: "no checkpoint or savepoint directory in " + other + " (chk-N, savepoint-*, or any directory holding a _metadata): not a job's checkpoints directory, or a job that has written none yet; nothing is an orphan without a completed checkpoint, so all is kept: 2 files, 8 B"},
		{args: []string{"audit", job}, stdout: "no checkpoint or savepoint directory in " + job},
		{args: []string{"gc", "--retain", "1", empty}, stdout: "nothing to collect: no checkpoints or savepoints in " + empty + ": it holds no directories"},
		{args: []string{"gc", "--retain", "1", other}, stdout: "nothing to collect: no checkpoints or savepoints in " + other + ": not a checkpoint directory", stderr: "skipped " + other + "/sub: no _metadata"},
		{args: []string{"gc", "--retain", "1", job}, stdout: "found 1 job directory, holding no checkpoint (chk-N): nothing to collect\nremoved 0, kept 0"},
		{args: []string{"gc", "--retain", "1", "--dry-run", base}, stdout: "found 1 job directory, holding no checkpoint (chk-N): nothing to collect\ndry run: would remove 0, keep 0"},
	} {
		r := vfskit(t, append([]string{"checkpoints"}, row.args...)...)
		assert.Equal(t, row.code, r.code, "%q: %s", row.args, r.stderr)
		for _, out := range []struct{ got, want string }{{r.stdout, row.stdout}, {r.stderr, row.stderr}} {
			if out.want == "" {
				assert.Empty(t, out.got, "%q", row.args)
				continue
			}
			assert.Contains(t, out.got, out.want, "%q", row.args)
			assert.NotContains(t, out.got, "file does not exist", "%q", row.args)
		}
		assert.NotRegexp(t, `\b0 (files|orphans|completed)`, r.stdout, "%q: no zero counts", row.args)
	}
}

// TestGCConfinedToTheJob: gc removes old checkpoints but never a file that a
// _metadata names outside the job directory (it lists it, with --dry-run too),
// and never a checkpoint whose _metadata cannot be decoded (it says so).
func TestGCConfinedToTheJob(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("precious"), 0o644))
	base := vfs.MustPath("file://" + filepath.ToSlash(dir)).Join("ckpt")
	job := checkpointstorage.NewJobID()
	s, err := checkpointstorage.NewFsCheckpointStorage(ctx, job, base, vfs.Path{}, 0, 0)
	require.NoError(t, err)
	victimPath := vfs.MustPath("file://" + filepath.ToSlash(victim))
	for id := int64(1); id <= 3; id++ {
		loc, err := s.InitializeLocationForCheckpoint(ctx, id)
		require.NoError(t, err)
		m := &checkpointstorage.CheckpointMetadata{JobID: job, CheckpointID: id}
		if id == 1 {
			m.Operators = []checkpointstorage.OperatorState{{UID: "op", Parallelism: 1, MaxParallelism: 1,
				Subtasks: []checkpointstorage.SubtaskState{{Handles: []metadata.Handle{checkpointstorage.NewFileStateHandle(victimPath, 8)}}}}}
		}
		_, err = checkpointstorage.FinalizeCheckpoint(ctx, loc, m)
		require.NoError(t, err)
	}
	jobDir := s.CheckpointsDirectory().String()
	chk2 := filepath.Join(dir, "ckpt", job.String(), "chk-2", "_metadata")
	require.NoError(t, os.WriteFile(chk2, []byte("VFKC but not really"), 0o644))

	dry := ok(t, "checkpoints", "gc", jobDir, "--retain", "1", "--dry-run")
	assert.Contains(t, dry, "would remove "+jobDir+"/chk-1 (completed")
	assert.Contains(t, dry, "  not removed, outside the job directory: "+victimPath.String()+"\n")
	assert.Contains(t, dry, "kept "+jobDir+"/chk-2 (its metadata cannot be decoded: ")
	assert.Contains(t, dry, "dry run: would remove 1, keep 2; 1 kept because their metadata cannot be decoded; 1 referenced files outside the job directory left in place\n")

	real := ok(t, "checkpoints", "gc", jobDir, "--retain", "1")
	assert.Contains(t, real, "removed "+jobDir+"/chk-1 (completed")
	assert.Contains(t, real, "  not removed, outside the job directory: "+victimPath.String()+"\n")
	assert.Contains(t, real, "removed 1, kept 2; 1 kept because")
	data, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "precious", string(data))
	assert.NoDirExists(t, filepath.Join(dir, "ckpt", job.String(), "chk-1"))
	assert.FileExists(t, chk2)
}

// TestGCOnFlinkCheckpoints runs gc over a copy (in a temporary directory,
// never the repository) of a job directory Flink wrote: chk-6 as Flink wrote
// it, the same as chk-7, and as chk-5 with its _metadata cut short. Keeping
// one, gc removes chk-6, keeps chk-5 (it cannot be decoded) and leaves the
// job's shared/ files alone.
func TestGCOnFlinkCheckpoints(t *testing.T) {
	src := filepath.Join(fixtures.FlinkMetadataDir(t), "gimral-offset-translator", "state", "checkpoint", "494ff033ac9eadd8d03630bec6e3fb42")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("Flink fixture not found: %v", err)
	}
	job := filepath.Join(t.TempDir(), filepath.Base(src))
	require.NoError(t, os.CopyFS(job, os.DirFS(src)))
	require.NoError(t, os.CopyFS(filepath.Join(job, "chk-7"), os.DirFS(filepath.Join(job, "chk-6"))))
	require.NoError(t, os.CopyFS(filepath.Join(job, "chk-5"), os.DirFS(filepath.Join(job, "chk-6"))))
	meta5 := filepath.Join(job, "chk-5", "_metadata")
	data, err := os.ReadFile(meta5)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(meta5, data[:100], 0o644))
	shared, err := os.ReadDir(filepath.Join(job, "shared"))
	require.NoError(t, err)
	require.NotEmpty(t, shared)

	uri := "file://" + filepath.ToSlash(job)
	out := ok(t, "checkpoints", "gc", uri, "--retain", "1")
	assert.Contains(t, out, "removed "+uri+"/chk-6 (completed")
	assert.Contains(t, out, "kept "+uri+"/chk-5 (its metadata cannot be decoded: ")
	assert.Contains(t, out, "removed 1, kept 2; 1 kept because their metadata cannot be decoded")
	assert.NoDirExists(t, filepath.Join(job, "chk-6"))
	assert.FileExists(t, meta5)
	assert.FileExists(t, filepath.Join(job, "chk-7", "_metadata"))
	for _, e := range shared {
		assert.FileExists(t, filepath.Join(job, "shared", e.Name()))
	}
}

// TestGCDoesNotFollowALinkedCheckpoint: a chk-N of one job that is a symbolic
// link into another job's checkpoint is reported as kept, and the other job
// keeps its _metadata, its state and its link target.
func TestGCDoesNotFollowALinkedCheckpoint(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	base := vfs.MustPath("file://" + filepath.ToSlash(dir))
	var jobs []string
	for range 2 {
		job := checkpointstorage.NewJobID()
		s, err := checkpointstorage.NewFsCheckpointStorage(ctx, job, base, vfs.Path{}, 0, 0)
		require.NoError(t, err)
		for id := int64(1); id <= 2; id++ {
			loc, err := s.InitializeLocationForCheckpoint(ctx, id)
			require.NoError(t, err)
			_, err = checkpointstorage.FinalizeCheckpoint(ctx, loc, &checkpointstorage.CheckpointMetadata{JobID: job, CheckpointID: id})
			require.NoError(t, err)
		}
		jobs = append(jobs, job.String())
	}
	other := filepath.Join(dir, jobs[1], "chk-2")
	require.NoError(t, os.Symlink(other, filepath.Join(dir, jobs[0], "chk-0")))

	out := ok(t, "checkpoints", "gc", base.Join(jobs[0]).String(), "--retain", "1")
	assert.Contains(t, out, "kept "+base.Join(jobs[0], "chk-0").String()+" (a symbolic link, not followed")
	assert.Contains(t, out, "removed "+base.Join(jobs[0], "chk-1").String()+" (completed")
	assert.FileExists(t, filepath.Join(other, "_metadata"))
}

package checkpointstorage_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

// killChildEnv names the variable that makes TestDisposeKilledChild, in a
// child process, write checkpoints into the directory it names and dispose of
// one until it is killed.
const killChildEnv = "VFSKIT_TEST_DISPOSE_KILL_DIR"

// killFiles is the number of small state files of the disposed checkpoint: a
// recursive delete of that many files takes long enough for the kill to land in
// the middle of it.
const killFiles = 1000

// TestDisposeKilledChild is the child of TestDisposeSurvivesSIGKILL: it writes
// chk-1 and chk-2 on file://, says "disposing", disposes of chk-1 and then waits
// to be killed. It does nothing in a normal test run.
func TestDisposeKilledChild(t *testing.T) {
	dir := os.Getenv(killChildEnv)
	if dir == "" {
		t.Skip("runs as the child of TestDisposeSurvivesSIGKILL")
	}
	job, err := cs.ParseJobID(os.Getenv(killChildEnv + "_JOB"))
	require.NoError(t, err)
	s, err := cs.NewFsCheckpointStorage(t.Context(), job, vfs.MustPath("file://"+filepath.ToSlash(dir)), vfs.Path{}, 100, 0)
	require.NoError(t, err)
	c := writeCrashCheckpoint(t, s, 1, killFiles)
	writeCrashCheckpoint(t, s, 2, 1)
	loc, err := cs.ResolveCheckpointPointer(t.Context(), c.dir.String())
	require.NoError(t, err)
	os.Stdout.WriteString("disposing\n")
	require.NoError(t, loc.DisposeStorageLocation(t.Context()))
	os.Stdout.WriteString("disposed\n")
	select {} // until killed
}

// TestDisposeSurvivesSIGKILL kills (SIGKILL) a process while it disposes of a
// checkpoint on file://, several times, and checks each time that every
// checkpoint still listed as completed restores byte for byte.
func TestDisposeSurvivesSIGKILL(t *testing.T) {
	if os.Getenv(killChildEnv) != "" {
		t.Skip("in the child")
	}
	const rounds = 3
	interrupted := 0
	for range rounds {
		dir := t.TempDir()
		job := cs.NewJobID()
		cmd := exec.Command(os.Args[0], "-test.run=^TestDisposeKilledChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), killChildEnv+"="+dir, killChildEnv+"_JOB="+job.String())
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		lines := bufio.NewScanner(out)
		for lines.Scan() && !strings.HasPrefix(lines.Text(), "disposing") {
		}
		// Kill as soon as the first file of chk-1 is gone: in the middle of
		// the dispose, whatever order it deletes in.
		// The child may also finish (or fail) first: stop watching then.
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			for lines.Scan() && lines.Text() != "disposed" {
			}
		}()
		chk1 := filepath.Join(dir, job.String(), "chk-1")
	watch:
		for range 1_000_000 {
			select {
			case <-finished:
				break watch
			default:
			}
			if n, err := countEntries(chk1); err != nil || n < killFiles+3 {
				break
			}
		}
		require.NoError(t, cmd.Process.Kill())
		<-finished // the killed child's output ends
		_ = cmd.Wait()

		jobDir := cs.JobCheckpointsDir(vfs.MustPath("file://"+filepath.ToSlash(dir)), job)
		infos, err := cs.ListCompletedCheckpoints(t.Context(), jobDir)
		require.NoError(t, err)
		require.NotEmpty(t, infos, "chk-2 is never disposed")
		if _, err := os.Stat(filepath.Join(dir, job.String(), "chk-1")); err == nil {
			interrupted++
		}
		requireCompletedRestore(t, jobDir, map[int64]crashedCheckpoint{
			1: {state: crashState(1, killFiles)},
			2: {state: crashState(2, 1)},
		})
	}
	t.Logf("%d of %d kills landed before chk-1 was gone", interrupted, rounds)
}

// countEntries returns the number of names in directory dir.
func countEntries(dir string) (int, error) {
	f, err := os.Open(dir)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	return len(names), err
}

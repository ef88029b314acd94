package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/internal/bigmeta"
)

// failingWriter takes the first n bytes, then fails: the write that crosses n
// writes what fits and returns err, as a full disk does, and so does every
// later write, each of which it counts.
type failingWriter struct {
	n       int
	err     error
	written bytes.Buffer
	failed  bool
	after   int // writes attempted after the failure
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.failed {
		w.after++
		return 0, w.err
	}
	room := w.n - w.written.Len()
	if len(p) <= room {
		return w.written.Write(p)
	}
	w.written.Write(p[:room])
	w.failed = true
	return room, w.err
}

// runOn runs one command line with standard output w.
func runOn(w *failingWriter, args ...string) (code int, stderr string) {
	var errOut bytes.Buffer
	code = Run(withLastingMemory(context.Background()), args, Stdio{Out: w, Err: &errOut, Terminal: func() bool { return false }}, allSchemes...)
	return code, errOut.String()
}

// TestOutputWriteError: when standard output fails (a full disk after some
// bytes, a broken pipe), the command stops at the first failing write (no
// write reaches the output after it), exits with status 1 and says so in one
// line; a broken pipe exits with status 1 quietly, as coreutils do.
func TestOutputWriteError(t *testing.T) {
	chk, _ := bigmeta.Write(t, 3000)
	uri := "file://" + filepath.ToSlash(chk)
	root := memRoot(t)
	for i := range 3 {
		writeTo(t, fmt.Sprintf("%s/d%d/f", root, i), "x")
	}
	for _, args := range [][]string{
		{"checkpoints", "inspect", "--json", uri},
		{"checkpoints", "inspect", uri},
		{"checkpoints", "inspect", "--json", "--verify", uri},
		{"checkpoints", "inspect", "--verify", uri},
		{"checkpoints", "verify", filepath.Dir(chk)},
		{"ls", "--json", root + "/d0", root + "/d1", root + "/d2"},
		{"ls", root + "/d0", root + "/d1", root + "/d2"},
		{"stat", "--json", root + "/d0", root + "/d1", root + "/d2"},
		{"cat", root + "/d0/f", root + "/d1/f", root + "/d2/f"},
		{"ls", "-R", root},
	} {
		all := &failingWriter{n: 1 << 30}
		code, stderr := runOn(all, args...) // --verify fails: the state files are not there
		require.NotEqual(t, ExitUsage, code, "%q: %s", args, stderr)
		require.NotZero(t, all.written.Len(), "%q: %s", args, stderr)
		for _, n := range []int{0, 1, all.written.Len() / 2, all.written.Len() - 1} {
			t.Run(fmt.Sprint(args, n), func(t *testing.T) {
				w := &failingWriter{n: n, err: syscall.ENOSPC}
				code, stderr := runOn(w, args...)
				assert.Equal(t, ExitFailure, code)
				assert.Equal(t, "vfskit: write error on standard output: no space left on device\n", stderr, "one message, the write error")
				assert.Zero(t, w.after, "nothing is written after the first failure")
				assert.LessOrEqual(t, w.written.Len(), n)

				w = &failingWriter{n: n, err: syscall.EPIPE}
				code, stderr = runOn(w, args...)
				assert.Equal(t, ExitFailure, code, "a broken pipe is a failure")
				assert.Empty(t, stderr, "a broken pipe is not reported")
				assert.Zero(t, w.after, "nothing is written after the first failure")
			})
		}
	}
}

// TestInspectStopsAtWriteError: inspect renders no more subtasks once the
// output failed, in JSON and in text (it rendered all 3,000 before).
func TestInspectStopsAtWriteError(t *testing.T) {
	chk, _ := bigmeta.Write(t, 3000)
	md, loc, err := checkpointstorage.LoadCheckpoint(t.Context(), "file://"+filepath.ToSlash(chk), testApp(t).storage())
	require.NoError(t, err)
	for name, write := range map[string]func(d *inspectDoc, w *failingWriter) error{
		"json": func(d *inspectDoc, w *failingWriter) error { return d.writeJSON(w) },
		"text": func(d *inspectDoc, w *failingWriter) error { return d.writeText(w, func(s string) string { return s }) },
	} {
		t.Run(name, func(t *testing.T) {
			whole := newInspectDoc(md, loc)
			require.NoError(t, write(whole, &failingWriter{n: 1 << 30}))
			require.Equal(t, 3000, whole.rendered)

			d := newInspectDoc(md, loc)
			w := &failingWriter{n: 10, err: syscall.ENOSPC}
			err := write(d, w)
			require.Error(t, err)
			assert.True(t, errors.Is(err, syscall.ENOSPC), "the writer's error: %v", err)
			// The first write happens when the 64 KiB buffer is full (a few
			// hundred subtasks); the walk stops right there.
			assert.Less(t, d.rendered, 1000, "subtasks rendered after the write failed")
			assert.Zero(t, w.after)
		})
	}
}

// TestGCStopsAtWriteError: gc over a base directory of two jobs whose output
// fails on its first line stops after the first job: the second job's
// checkpoints, whose removal could not be reported, are all still there.
func TestGCStopsAtWriteError(t *testing.T) {
	chk, _ := bigmeta.Write(t, 2)
	data, err := os.ReadFile(filepath.Join(chk, "_metadata"))
	require.NoError(t, err)
	base := t.TempDir()
	jobs := []string{"00000000000000000000000000000001", "00000000000000000000000000000002"}
	for _, job := range jobs {
		for id := 1; id <= 3; id++ {
			dir := filepath.Join(base, job, fmt.Sprintf("chk-%d", id))
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "_metadata"), data, 0o644))
		}
	}
	w := &failingWriter{n: 0, err: syscall.ENOSPC}
	code, stderr := runOn(w, "checkpoints", "gc", "--retain", "1", "file://"+filepath.ToSlash(base))
	assert.Equal(t, ExitFailure, code)
	assert.Equal(t, "vfskit: write error on standard output: no space left on device\n", stderr)
	assert.Zero(t, w.after)
	left := func(job string) int {
		entries, err := os.ReadDir(filepath.Join(base, job))
		require.NoError(t, err)
		return len(entries)
	}
	assert.Equal(t, 1, left(jobs[0]), "the first job was collected")
	assert.Equal(t, 3, left(jobs[1]), "the second job was not touched")

	code, stderr = runOn(&failingWriter{n: 1 << 20}, "checkpoints", "gc", "--retain", "1", "file://"+filepath.ToSlash(base))
	require.Equal(t, ExitOK, code, stderr)
	assert.Equal(t, 1, left(jobs[1]), "with a working output gc goes on")
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testConventions runs the built binary for the habits of Unix tools: no
// command, --version, completion, "-" and /dev/stdin, several arguments and
// --json for ls and stat, cp replacing by default and -n.
func testConventions(t *testing.T, bin string) {
	work := t.TempDir()
	run := runner(t, bin, work, nil)
	withStdin := func(stdin string, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = work
		cmd.Stdin = strings.NewReader(stdin) // a pipe: not seekable
		return runCmd(t, cmd)
	}

	out, stderr, code := run()
	assert.Equal(t, 2, code, "no command is a usage error")
	assert.Empty(t, out)
	assert.Contains(t, stderr, "Usage:")
	assert.Contains(t, stderr, "vfskit: no command given")

	out, stderr, code = run("--version")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `^vfskit \S+ \(.*go1\.\d+.*\)\n$`, out)
	if head, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil && strings.Contains(out, "commit ") {
		assert.Contains(t, out, "commit "+strings.TrimSpace(string(head)))
	}

	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		out, stderr, code = run("completion", shell)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, out, "vfskit", shell)
	}
	_, _, code = run("completion", "tcsh")
	assert.Equal(t, 2, code)

	data := strings.Repeat("streamed through a pipe\n", 20000) // 480 KB: many pipe buffers
	_, stderr, code = withStdin(data, "cp", "/dev/stdin", "from-dev-stdin.txt")
	require.Equal(t, 0, code, stderr)
	got, err := os.ReadFile(filepath.Join(work, "from-dev-stdin.txt"))
	require.NoError(t, err)
	assert.Equal(t, data, string(got), "cp /dev/stdin reads the pipe whole")
	_, stderr, code = withStdin("dash", "cp", "-", "from-dash.txt")
	require.Equal(t, 0, code, stderr)
	out, stderr, code = withStdin("in|", "cat", "-", "from-dash.txt")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "in|dash", out)
	out, stderr, code = run("cp", "from-dash.txt", "-")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "dash", out)

	_, stderr, code = run("cp", "from-dash.txt", "from-dev-stdin.txt")
	require.Equal(t, 0, code, stderr)
	got, err = os.ReadFile(filepath.Join(work, "from-dev-stdin.txt"))
	require.NoError(t, err)
	assert.Equal(t, "dash", string(got), "cp replaces an existing file by default")
	require.NoError(t, os.WriteFile(filepath.Join(work, "keep.txt"), []byte("keep"), 0o644))
	_, stderr, code = run("cp", "--update=none-fail", "from-dash.txt", "keep.txt")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "file already exists (kept: --update=none-fail)")
	got, err = os.ReadFile(filepath.Join(work, "keep.txt"))
	require.NoError(t, err)
	assert.Equal(t, "keep", string(got))

	testStdinInterrupted(t, bin, work)

	out, stderr, code = run("stat", "keep.txt", "missing.txt", "from-dash.txt")
	assert.Equal(t, 1, code)
	assert.Equal(t, 2, strings.Count(out, "Path:"), out)
	assert.Contains(t, stderr, "missing.txt")
	out, stderr, code = run("ls", "--json", "keep.txt", "from-dash.txt")
	require.Equal(t, 0, code, stderr)
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct{ Name, Type string }
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		assert.Equal(t, "file", e.Type)
		names = append(names, e.Name)
	}
	assert.Equal(t, []string{"keep.txt", "from-dash.txt"}, names)
	out, stderr, code = run("stat", "--json", "keep.txt")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, `"size":4`)
}

// testStdinInterrupted: Ctrl-C while "cp - FILE" waits for more input exits
// 130 and publishes nothing, leaving no temporary file.
func testStdinInterrupted(t *testing.T, bin, work string) {
	dir := filepath.Join(work, "interrupted-stdin")
	require.NoError(t, os.Mkdir(dir, 0o755))
	cmd := exec.Command(bin, "cp", "-", filepath.Join(dir, "out.bin"))
	cmd.Dir = work
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	require.NoError(t, cmd.Start())
	// More than a pipe holds: Write returns only once cp has read most of it,
	// so cp is running (its signal handler installed) and waits for more.
	_, err = stdin.Write(bytes.Repeat([]byte("x"), 1<<20))
	require.NoError(t, err)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err = cmd.Wait()
	_ = stdin.Close()
	exit, ok := err.(*exec.ExitError)
	require.True(t, ok, "%v", err)
	assert.Equal(t, 130, exit.ExitCode(), errOut.String())
	assert.Contains(t, errOut.String(), "vfskit: interrupted: ")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing published, no temporary file left")
}

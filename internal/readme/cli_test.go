package readme_test

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIntegratorCLI builds docs/cli.md's integrator example (myvfskit, the
// vfskit command line with a myfs:// scheme) with go build and runs it: the new
// scheme is reached by URI, the built-in ones still are, and an unknown scheme
// is a usage error that lists myfs.
func TestIntegratorCLI(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "myvfskit")
	build := exec.Command("go", "build", "-o", bin, "./internal/readme/myvfskit")
	build.Dir = moduleRoot(t)
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return stdout.String(), stderr.String(), code
	}

	stdout, stderr, code := run("ls", "myfs://demo/")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "hello.txt\n", stdout)

	stdout, stderr, code = run("cat", "myfs://demo/hello.txt")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "hello from demo\n", stdout)

	dir := t.TempDir()
	_, stderr, code = run("cp", "myfs://demo/hello.txt", "file://"+dir+"/copy.txt")
	require.Equal(t, 0, code, stderr)
	stdout, stderr, code = run("cat", filepath.Join(dir, "copy.txt"))
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "hello from demo\n", stdout, "the copy through file:// holds myfs's bytes")

	stdout, _, code = run("--help")
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "This binary serves the schemes file, memory, myfs, s3, s3a, s3p.")

	_, stderr, code = run("ls", "nosuch://x/")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "myfs", "the error lists the schemes the binary serves")
}

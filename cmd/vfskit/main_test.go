package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/s3test"
)

func TestMain(m *testing.M) {
	var err error
	if binDir, err = os.MkdirTemp("", "vfskit-test-bin-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := s3test.Main(m)
	azuritetest.Stop()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// s3Bucket is a fresh bucket on SeaweedFS and the flags that point the built
// binary at the server (--endpoint, --path-style); the credentials come from
// srv.Env() or s3Credentials.
type s3Bucket struct {
	srv   *s3test.Server
	name  string
	flags []string
}

// newS3Bucket starts (or reuses) SeaweedFS and makes a bucket on it.
func newS3Bucket(t *testing.T) s3Bucket {
	t.Helper()
	srv := s3test.SeaweedFS(t)
	return s3Bucket{srv: srv, name: srv.NewBucket(t), flags: []string{"--endpoint", srv.Endpoint, "--path-style"}}
}

// args returns the binary's arguments: the flags, then a.
func (b s3Bucket) args(a ...string) []string { return append(append([]string(nil), b.flags...), a...) }

// s3Credentials returns the environment that gives the binary the server's
// credentials and region and nothing else of the AWS configuration: the
// endpoint and path style come from the flags.
func (b s3Bucket) s3Credentials() []string {
	return []string{
		"AWS_ACCESS_KEY_ID=" + b.srv.AccessKeyID,
		"AWS_SECRET_ACCESS_KEY=" + b.srv.SecretAccessKey,
		"AWS_REGION=" + b.srv.Region,
		"AWS_ENDPOINT_URL_S3=", "AWS_ENDPOINT_URL=", "VFSKIT_S3_PATH_STYLE=",
	}
}

// runner returns a function that runs the binary bin in dir with env added to
// the environment, returning its output and exit status.
func runner(t *testing.T, bin, dir string, env []string) func(args ...string) (stdout, stderr string, code int) {
	return func(args ...string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		return runCmd(t, cmd)
	}
}

// runCmd runs cmd and returns its output and exit status.
func runCmd(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		require.NoError(t, err)
	}
	return out.String(), errOut.String(), code
}

// TestBinary builds the vfskit binary (go build) and runs it as a user would:
// the demo into a local directory and on S3, the checkpoint tools on what it
// wrote, file commands, and the exit statuses of failures and usage errors.
func TestBinary(t *testing.T) {
	bin := buildVfskit(t)
	t.Run("conventions", func(t *testing.T) { testConventions(t, bin) })
	t.Run("local", func(t *testing.T) { testBinaryLocal(t, bin) })
	t.Run("s3", func(t *testing.T) { testBinaryS3(t, bin) })
	t.Run("gs", func(t *testing.T) { testBinaryGCS(t, bin) })
	t.Run("azblob", func(t *testing.T) { testBinaryAzure(t, bin) })
}

func testBinaryLocal(t *testing.T, bin string) {
	work := t.TempDir()
	run := runner(t, bin, work, nil)

	out, _, code := run("--help")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "Available Commands:")

	ckpt := "file://" + filepath.Join(work, "ckpt")
	out, stderr, code := run("demo", "--records", "30000", "-k", "5000", "--rate", "0", "--storage", "fs",
		"--job-id", "00112233445566778899aabbccddeeff", "--checkpoint-dir", ckpt)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "OK: every count equals the failure-free run's (exactly-once)")
	assert.Contains(t, out, "Inspect: vfskit checkpoints list "+ckpt+"/00112233445566778899aabbccddeeff")
	assert.Contains(t, stderr, "CRASH at record")
	sp := regexp.MustCompile(`Savepoint: (\S+)`).FindStringSubmatch(out)
	require.Len(t, sp, 2, out)

	out, stderr, code = run("checkpoints", "list", ckpt+"/00112233445566778899aabbccddeeff")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 5, strings.Count(out, " yes "), out)
	out, stderr, code = run("checkpoints", "inspect", sp[1])
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "Savepoint 6 of job 00112233445566778899aabbccddeeff")

	require.NoError(t, os.WriteFile(filepath.Join(work, "a.txt"), []byte("hello"), 0o644))
	_, stderr, code = run("cp", "a.txt", "file://"+filepath.Join(work, "b.txt"))
	require.Equal(t, 0, code, stderr)
	out, _, code = run("cat", "b.txt")
	require.Equal(t, 0, code)
	assert.Equal(t, "hello", out)

	_, stderr, code = run("cat", "missing.txt")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "missing.txt")
	_, stderr, code = run("ls", "nosuch://bucket/x")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "nosuch:// is not a scheme here")
	_, stderr, code = run("ls", "file://host/x")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "did you forget a slash")
	_, _, code = run("cp", "only-one-arg")
	assert.Equal(t, 2, code)

	testInterrupt(t, bin, work, os.Interrupt, 130)
	testInterrupt(t, bin, work, syscall.SIGTERM, 143)

	meta := filepath.Join(work, "ckpt", "00112233445566778899aabbccddeeff", "chk-5", "_metadata")
	require.NoError(t, os.WriteFile(meta, []byte("garbage"), 0o644))
	_, stderr, code = run("checkpoints", "inspect", ckpt+"/00112233445566778899aabbccddeeff/chk-5")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "corrupt checkpoint metadata")
}

// testInterrupt sends sig (SIGINT: Ctrl-C, or SIGTERM) to a running demo once
// it has taken its first checkpoint: the demo stops, says it was interrupted
// and exits with code (128 + the signal's number, as shells report it).
func testInterrupt(t *testing.T, bin, work string, sig os.Signal, code int) {
	cmd := exec.Command(bin, "demo", "--records", "200000", "-k", "1000", "--rate", "20000",
		"--checkpoint-dir", "file://"+filepath.Join(work, "interrupted-"+sig.String()))
	cmd.Dir = work
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	var out bytes.Buffer
	cmd.Stdout = &out
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stderr)
	var lines []string
	signalled := false
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if !signalled && strings.Contains(sc.Text(), "checkpoint 1 ") {
			require.NoError(t, cmd.Process.Signal(sig))
			signalled = true
		}
	}
	err = cmd.Wait()
	require.True(t, signalled, "the demo took no checkpoint: %q", lines)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, code, exit.ExitCode())
	assert.Contains(t, lines[len(lines)-1], "vfskit: interrupted: ")
	assert.Empty(t, out.String(), "no summary for an interrupted run")
}

// testBinaryS3 runs the binary against SeaweedFS: credentials from the
// environment, endpoint and path style from the flags.
func testBinaryS3(t *testing.T, bin string) {
	b := newS3Bucket(t)
	bucket, s3Flags := b.name, b.flags
	work := t.TempDir()
	run := runner(t, bin, work, b.s3Credentials())

	data := bytes.Repeat([]byte("vfskit "), 1<<20) // 7 MiB: a multipart upload
	require.NoError(t, os.WriteFile(filepath.Join(work, "a.bin"), data, 0o644))
	_, stderr, code := run(append(s3Flags, "cp", "./a.bin", "s3://"+bucket+"/in/a.bin")...)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr, "no progress bar when stderr is not a terminal")
	_, stderr, code = run(append(s3Flags, "cp", "s3://"+bucket+"/in/a.bin", "b.bin")...)
	require.Equal(t, 0, code, stderr)
	got, err := os.ReadFile(filepath.Join(work, "b.bin"))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, got), "round trip through S3 is byte for byte")

	ckpt := "s3://" + bucket + "/ckpt"
	out, stderr, code := run(append(s3Flags, "demo", "--records", "30000", "-k", "5000", "--rate", "0",
		"--job-id", "00112233445566778899aabbccddeeff", "--checkpoint-dir", ckpt)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "OK: every count equals the failure-free run's (exactly-once)")
	out, stderr, code = run(append(s3Flags, "checkpoints", "list", ckpt+"/00112233445566778899aabbccddeeff")...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 5, strings.Count(out, " yes "), out)
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
)

// s3Root starts (or reuses) the SeaweedFS test server and returns a fresh
// bucket as s3://bucket. Credentials come from the environment, as for a user;
// the endpoint and path style from the --endpoint and --path-style flags, which
// every command line of the test gets.
func s3Root(t *testing.T) string {
	srv := s3test.SeaweedFS(t)
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretAccessKey)
	t.Setenv("AWS_REGION", srv.Region)
	globalArgs = []string{"--endpoint", srv.Endpoint, "--path-style"}
	t.Cleanup(func() {
		globalArgs = nil
		s3.SetOptions(s3.Options{})
	})
	root := "s3://" + srv.NewBucket(t)
	// The flags configure the command line's own s3:// file systems and leave
	// the backend's process-wide options alone.
	s3.SetOptions(s3.Options{})
	ok(t, "ls", root)
	require.Equal(t, s3.Options{}, s3.CurrentOptions(), "the CLI changed the s3 backend's process-wide options")
	// The library calls the tests make to set up and verify files reach the
	// server through the process-wide options.
	s3.SetOptions(s3.Options{Endpoint: srv.Endpoint, PathStyle: true})
	return root
}

func TestCopyMatrixWithS3(t *testing.T) {
	roots := map[string]string{"s3": s3Root(t), "memory": memRoot(t), "file": "file://" + t.TempDir()}
	copyMatrix(t, roots, func(src, dst string) bool { return src == "s3" || dst == "s3" })
}

func TestFileCommandsOnS3(t *testing.T) {
	root := s3Root(t)
	local := "file://" + t.TempDir()
	writeTo(t, local+"/top.txt", "top")
	ok(t, "cp", local+"/top.txt", root+"/") // into the (empty) bucket's root
	assert.Equal(t, "top", ok(t, "cat", root+"/top.txt"))
	assert.Equal(t, "top.txt\n", ok(t, "ls", root))
	ok(t, "cp", local+"/top.txt", root+"/prefix/") // into a prefix that does not exist yet
	assert.Equal(t, "top", ok(t, "cat", root+"/prefix/top.txt"))
	writeTo(t, local+"/two.txt", "two")
	assert.Contains(t, fails(t, ExitFailure, "cp", local+"/top.txt", local+"/two.txt", root+"/several"),
		"target directory: file does not exist", "several sources need a directory: without a trailing / a prefix no key starts with is none")
	ok(t, "cp", local+"/top.txt", local+"/two.txt", root+"/several/") // a prefix ending in / is one
	assert.Equal(t, "top.txt\ntwo.txt\n", ok(t, "ls", root+"/several"))
	ok(t, "rm", "-r", root+"/several")
	ok(t, "rm", root+"/top.txt", root+"/prefix/top.txt")
	writeTo(t, root+"/d/a.txt", "hello")
	writeTo(t, root+"/d/sub/b.txt", "world!")
	assert.Equal(t, "a.txt\nsub/\n", ok(t, "ls", root+"/d"))
	assert.Equal(t, "a.txt\nsub/\nsub/b.txt\n", ok(t, "ls", "-R", root+"/d"))
	st := ok(t, "stat", root+"/d/a.txt")
	assert.Contains(t, st, "Size:        5 (5 B)")
	assert.Contains(t, st, "(ObjectStore)")
	assert.Equal(t, "hello", ok(t, "cat", root+"/d/a.txt"))
	ok(t, "cp", root+"/d/a.txt", root+"/d/c.txt") // server-side copy
	ok(t, "mv", root+"/d/c.txt", root+"/e/c.txt")
	assert.Equal(t, "hello", ok(t, "cat", root+"/e/c.txt"))
	ok(t, "mkdir", root+"/empty")
	assert.Contains(t, fails(t, ExitFailure, "rm", root+"/d"), "use -r")
	ok(t, "rm", "-r", root+"/d")
	assert.Contains(t, fails(t, ExitFailure, "cat", root+"/d/a.txt"), "a.txt")
	assert.Contains(t, fails(t, ExitUsage, "--endpoint", "ftp://x", "ls", root), `invalid --endpoint "ftp://x"`)
}

func TestDemoAndCheckpointsOnS3(t *testing.T) {
	root := s3Root(t)
	r := vfskit(t, demoArgs(root+"/ckpt", "--storage", "fs", "--file-state-threshold", "1024")...)
	require.Equal(t, ExitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "OK: every count equals the failure-free run's (exactly-once)")
	assert.Contains(t, r.stdout, "Inspect: vfskit checkpoints list "+root+"/ckpt/"+testJobID)
	out := ok(t, "checkpoints", "list", root+"/ckpt/"+testJobID)
	assert.Equal(t, 9, strings.Count(out, " yes "), out)
	assert.Contains(t, ok(t, "checkpoints", "inspect", root+"/ckpt/"+testJobID+"/chk-9"), "operator word-count (parallelism 3")
	assert.Contains(t, ok(t, "checkpoints", "gc", root+"/ckpt/"+testJobID, "--retain", "3"), "removed 6, kept 3")
}

// TestProfileFlag reads the credentials for s3:// from a profile of the shared
// credentials file chosen with --profile, as a user with several accounts would;
// an unknown profile is an error naming it.
func TestProfileFlag(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	bucket := srv.NewBucket(t)
	dir := t.TempDir()
	creds := "[seaweed]\naws_access_key_id = " + srv.AccessKeyID + "\naws_secret_access_key = " + srv.SecretAccessKey + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "credentials"), []byte(creds), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config"), []byte("[profile seaweed]\nregion = "+srv.Region+"\n"), 0o600))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION"} {
		t.Setenv(k, "")
	}
	t.Cleanup(func() { s3.SetOptions(s3.Options{}) })

	local := "file://" + t.TempDir()
	writeTo(t, local+"/a.txt", "via profile")
	// Every command line creates its own s3:// file systems (and resolves their
	// credentials) from its flags.
	assert.Contains(t, fails(t, ExitFailure, "--endpoint", srv.Endpoint, "--profile", "nosuch", "ls", "s3a://"+bucket+"/"),
		"nosuch", "an unknown profile is named")
	ok(t, "--endpoint", srv.Endpoint, "--profile", "seaweed", "cp", local+"/a.txt", "s3p://"+bucket+"/a.txt")
	assert.Equal(t, "via profile", ok(t, "--endpoint", srv.Endpoint, "--profile", "seaweed", "cat", "s3a://"+bucket+"/a.txt"))
	assert.Equal(t, s3.Options{}, s3.CurrentOptions(), "the CLI changed the s3 backend's process-wide options")
}

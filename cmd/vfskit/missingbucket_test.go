package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/gcstest"
)

// TestMissingBucketOneLine runs every command that reaches a store on a bucket
// (or container) that does not exist, on SeaweedFS, fake-gcs-server and
// Azurite: each exits 1 with the one line ls prints for it (the store's
// message after the command's operation and URI), never "file does not
// exist" or the SDK's text, and rm -f does not take a missing bucket for a
// missing file. The demo prints the same line when it fails.
func TestMissingBucketOneLine(t *testing.T) {
	bin := buildVfskit(t)
	b := newS3Bucket(t)
	gcs := gcstest.Shared(t)
	az := azuritetest.Shared(t)
	work := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(work, "a.txt"), []byte("x"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(work, "d"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(work, "d", "b.txt"), []byte("x"), 0o644))
	for _, st := range []struct {
		root  string
		env   []string
		flags []string
	}{
		{"s3://no-such-bucket-x", b.s3Credentials(), b.flags},
		{"gs://no-such-bucket-x", []string{gcstest.EmulatorHostEnv + "=" + gcs.Host}, nil},
		{"azblob://no-such-container", []string{azuritetest.ConnectionStringEnv + "=" + az.ConnectionString}, nil},
	} {
		r := st.root
		t.Run(strings.SplitN(r, ":", 2)[0], func(t *testing.T) {
			run := func(args ...string) (string, int) {
				cmd := exec.Command(bin, append(append([]string(nil), st.flags...), args...)...)
				cmd.Env = append(cleanCloudEnv(), st.env...)
				cmd.Dir = work
				_, stderr, code := runCmd(t, cmd)
				return stderr, code
			}
			lsLine, code := run("ls", r+"/")
			require.Equal(t, 1, code, lsLine)
			prefix := "vfskit: list " + r + "/: "
			require.True(t, strings.HasPrefix(lsLine, prefix), lsLine)
			msg := strings.TrimPrefix(lsLine, prefix)
			require.Contains(t, msg, "does not exist")
			for _, args := range [][]string{
				{"ls", r + "/x"}, {"stat", r + "/x"}, {"cat", r + "/x"},
				{"cp", "a.txt", r + "/x"}, {"cp", "-r", "d", r + "/x/"}, {"cp", r + "/x", "b.txt"}, {"mv", "a.txt", r + "/x"},
				{"rm", r + "/x"}, {"rm", "-f", r + "/x"}, {"rm", "-r", r + "/x"}, {"rm", "-rf", r + "/x"},
				{"clean-temp", r + "/x"},
				{"checkpoints", "list", r + "/x"}, {"checkpoints", "inspect", r + "/x"}, {"checkpoints", "verify", r + "/x"},
				{"checkpoints", "audit", r + "/x"}, {"checkpoints", "gc", r + "/x", "--retain", "1"},
				{"demo", "--records", "100", "--checkpoint-dir", r + "/x"},
			} {
				stderr, code := run(args...)
				assert.Equal(t, 1, code, "%v: %s", args, stderr)
				lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
				last := lines[len(lines)-1]
				if args[0] != "demo" {
					assert.Len(t, lines, 1, "%v: one line: %q", args, stderr)
				}
				assert.True(t, strings.HasPrefix(last, "vfskit: ") && strings.HasSuffix(last+"\n", " "+r+"/x: "+msg) ||
					strings.HasSuffix(last+"\n", "/"+"b.txt: "+msg) || args[0] == "demo" && strings.HasSuffix(last+"\n", ": "+msg),
					"%v: the line ls prints (%q), got %q", args, msg, stderr)
			}
		})
	}
}

package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSecretsAreMasked checks that no error shows the user info of a URI given
// on the command line, whoever wrote the message: vfskit, vfs or a backend,
// before or after the file system was created. The built binary is tested the
// same way, with harder secrets, in cmd/vfskit.
func TestSecretsAreMasked(t *testing.T) {
	for _, args := range [][]string{
		{"cat", "s3://AKIAEXAMPLE:topsecret@bucket/x"},
		{"cat", "nosuch://AKIAEXAMPLE:topsecret@host/x"},
		{"ls", "file://AKIAEXAMPLE:topsecret@/x"},
		{"ls", "memory://AKIAEXAMPLE:topsecret@host/x"},
		{"rm", "memory://ok/a", "memory://AKIAEXAMPLE:topsecret@host/x"},
		{"demo", "--checkpoint-dir=nosuch://AKIAEXAMPLE:topsecret@host/x"},
	} {
		r := vfskit(t, args...)
		assert.NotEqual(t, ExitOK, r.code, "%q", args)
		assert.NotContains(t, r.stderr, "topsecret", "%q: a secret in a URI is never echoed", args)
		assert.NotContains(t, r.stderr, "AKIAEXAMPLE", "%q: nor the user", args)
		assert.Contains(t, r.stderr, "xxxxx@", "%q", args)
	}
}

// TestCheckpointToolsHideUserInfo runs the demo on a memory:// authority with a
// password, then lists, inspects (text and JSON) and garbage-collects what it
// wrote: the password is in none of the outputs, the paths are, redacted.
func TestCheckpointToolsHideUserInfo(t *testing.T) {
	const pw = "hunter2%2Fsecret"                            // percent-encoded: the password is "hunter2/secret"
	authority := strings.TrimPrefix(memRoot(t), "memory://") // fresh on every run
	dir := "memory://u:" + pw + "@" + authority + "/ckpt"
	job := "00112233445566778899aabbccddeeff"
	outs := []string{ok(t, "demo", "--records", "2000", "-k", "500", "--rate", "0", "--storage", "fs",
		"--job-id", job, "--checkpoint-dir", dir)}
	list := ok(t, "checkpoints", "list", dir)
	outs = append(outs, list)
	assert.Contains(t, list, "memory://xxxxx@"+authority+"/ckpt/"+job+"/chk-")
	chk := dir + "/" + job + "/chk-3"
	outs = append(outs, ok(t, "checkpoints", "inspect", chk), ok(t, "checkpoints", "inspect", "--json", chk),
		ok(t, "checkpoints", "gc", dir, "--retain", "1", "--dry-run"))
	for _, out := range outs {
		assert.NotContains(t, out, "hunter2")
		assert.Contains(t, out, "xxxxx@"+authority)
	}
}

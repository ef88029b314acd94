package cli

import (
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

package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPassword(t *testing.T) {
	for in, want := range map[string]string{
		"s3://AKIA:secret@bucket/x":      "secret",
		"s3://AKIA:se:cr@et@bucket/x%zz": "se:cr@et",
		"--checkpoint-dir=s3://k:pw@b/x": "pw",
		"s3://user@bucket/x":             "",
		"s3://bucket/a:b@c":              "",
		"/tmp/a:b@c":                     "",
		"memory://x/y?k=a:b@c":           "",
		"nosuch://key:pw@host":           "pw",
	} {
		assert.Equal(t, want, password(in), in)
	}
}

// TestSecretsAreMasked checks that no error shows the password of a URI given
// on the command line, whoever wrote the message: vfskit, vfs or a backend,
// before or after the file system was created.
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
		assert.Contains(t, r.stderr, "AKIAEXAMPLE:xxxxx@", "%q", args)
	}
}

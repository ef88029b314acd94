package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"s3://AKIA:secret@bucket/x":      "s3://AKIA:xxxxx@bucket/x",
		"s3://AKIA:se:cr@et@bucket/x%zz": "s3://AKIA:xxxxx@bucket/x%zz",
		"s3://user@bucket/x":             "s3://user@bucket/x",
		"s3://bucket/a:b@c":              "s3://bucket/a:b@c",
		"/tmp/a:b@c":                     "/tmp/a:b@c",
		"memory://x/y?k=a:b@c":           "memory://x/y?k=a:b@c",
	} {
		assert.Equal(t, want, redact(in), in)
	}
	for _, arg := range []string{"s3://AKIAEXAMPLE:topsecret@bucket/x", "nosuch://AKIAEXAMPLE:topsecret@host/x", "file://AKIAEXAMPLE:topsecret@/x"} {
		msg := fails(t, ExitUsage, "cat", arg)
		assert.NotContains(t, msg, "topsecret", "a secret in a URI is never echoed")
		assert.Contains(t, msg, "AKIAEXAMPLE:xxxxx@")
	}
}

// FuzzResolve feeds arbitrary command-line arguments to resolve: it never
// panics; a success is an absolute path qualified with a registered scheme,
// and a failure is an error with a message.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"", ".", "a.bin", "./a/../b", "/tmp/x", "file:///tmp/x", "file://host/x", "memory://demo/x",
		"memory:", "s3://bucket/key", "s3://", "s3://Bad_Bucket/x", "s3://b/x?region=eu-west-1",
		"s3://b/x?region=%zz", "nosuch://x/y", "::", `C:\foo`, "s3:relative", "memory://a/b/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		if strings.HasPrefix(arg, "s3") && strings.Contains(arg, "endpoint") {
			t.Skip("a query endpoint could reach the network")
		}
		loc, err := resolve(t.Context(), arg)
		if err != nil {
			require.NotEmpty(t, err.Error())
			if pw := password(arg); pw != "" {
				assert.NotContains(t, err.Error(), ":"+pw+"@", "the password of %q is masked", arg)
			}
			assert.Contains(t, []int{ExitFailure, ExitUsage}, exitStatus(err))
			return
		}
		require.NotNil(t, loc.fsys)
		assert.True(t, loc.path.IsAbsolute(), "%q resolved to %q", arg, loc.path)
		assert.NotEmpty(t, loc.path.Scheme(), "%q resolved to %q", arg, loc.path)
		assert.Equal(t, strings.HasSuffix(strings.SplitN(arg, "?", 2)[0], "/"), loc.dir)
	})
}

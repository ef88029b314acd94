package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
			assert.Contains(t, []int{ExitFailure, ExitUsage}, exitStatus(err))
			return
		}
		require.NotNil(t, loc.fsys)
		assert.True(t, loc.path.IsAbsolute(), "%q resolved to %q", arg, loc.path)
		assert.NotEmpty(t, loc.path.Scheme(), "%q resolved to %q", arg, loc.path)
		assert.Equal(t, strings.HasSuffix(strings.SplitN(arg, "?", 2)[0], "/"), loc.dir)
	})
}

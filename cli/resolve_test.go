package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exactSegments returns the non-empty '/'-separated segments of s, and false
// when one is "." or "..", which resolve rather than name.
func exactSegments(s string) ([]string, bool) {
	var segs []string
	for _, seg := range strings.Split(s, "/") {
		switch seg {
		case "":
		case ".", "..":
			return nil, false
		default:
			segs = append(segs, seg)
		}
	}
	return segs, true
}

// FuzzResolve feeds arbitrary command-line arguments to resolve: it never
// panics; a failure is an error with a message and exit status 1 or 2; a
// success is an absolute path qualified with a registered scheme, and names
// exactly what the argument spells: for memory:// URIs and plain paths (no
// query there), the resolved path's names are the argument's '/'-separated
// segments, every character kept.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"", ".", "a.bin", "./a/../b", "/tmp/x", "file:///tmp/x", "file://host/x", "memory://demo/x",
		"memory:", "s3://bucket/key", "s3://", "s3://Bad_Bucket/x", "s3://b/x?region=eu-west-1",
		"s3://b/x?region=%zz", "nosuch://x/y", "::", `C:\foo`, "s3:relative", "memory://a/b/",
		"victim?keep", "d/results?old", `bs\file`, "memory://fz/a__0x41__b", "memory://fz/ lead/trail /", "file:/tmp/x",
		"memory://fz/q?region=x", "s3://b/k?region=eu&x=1", "memory://fz/%41#frag",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		if strings.HasPrefix(strings.ToLower(arg), "s3") && strings.Contains(arg, "endpoint") {
			t.Skip("a query endpoint could reach the network")
		}
		loc, err := testApp(t).resolve(t.Context(), arg)
		if err != nil {
			require.NotEmpty(t, err.Error())
			assert.Contains(t, []int{ExitFailure, ExitUsage}, exitStatus(err))
			return
		}
		require.NotNil(t, loc.fsys)
		assert.True(t, loc.path.IsAbsolute(), "%q resolved to %q", arg, loc.path)
		assert.NotEmpty(t, loc.path.Scheme(), "%q resolved to %q", arg, loc.path)
		switch {
		case strings.HasPrefix(arg, "memory://fz/"):
			rest := strings.TrimPrefix(arg, "memory://fz")
			assert.Equal(t, strings.HasSuffix(rest, "/"), loc.dir, "%q", arg)
			if segs, exact := exactSegments(rest); exact {
				assert.Equal(t, "/"+strings.Join(segs, "/"), loc.path.Path(), "%q names exactly its segments", arg)
			}
		case !strings.Contains(arg, ":"):
			assert.Equal(t, strings.HasSuffix(arg, "/"), loc.dir, "%q", arg)
			if segs, exact := exactSegments(arg); exact {
				base := strings.TrimSuffix(loc.fsys.WorkingDirectory().Path(), "/")
				if strings.HasPrefix(arg, "/") {
					base = ""
				}
				assert.Equal(t, base+"/"+strings.Join(segs, "/"), loc.path.Path(), "%q names exactly its segments", arg)
			}
		}
	})
}

func TestParseArgQueries(t *testing.T) {
	params := func(s string) []string {
		if s == "s3" {
			return []string{"endpoint", "region"}
		}
		return nil
	}
	isScheme := func(s string) bool { return s == "s3" || s == "memory" || s == "file" }
	for _, c := range []struct {
		arg, authority, query string
		segs                  []string
	}{
		{"s3://b?region=eu-west-1/k", "b", "region=eu-west-1", []string{"k"}},
		{"s3://b?region=eu", "b", "region=eu", nil},
		{"s3://b?region=eu&endpoint=http%3A%2F%2Fh%3A1/d/k", "b", "region=eu&endpoint=http%3A%2F%2Fh%3A1", []string{"d", "k"}},
		// After the first '/' everything is the path: a listed name is exact.
		{"s3://b/k?region=eu-west-1", "b", "", []string{"k?region=eu-west-1"}},
		{"s3://b/?region=eu", "b", "", []string{"?region=eu"}},
		{"s3://b/x/report?region=us-east-1", "b", "", []string{"x", "report?region=us-east-1"}},
		{"s3://b/k?old", "b", "", []string{"k?old"}},
		{"s3://b/k?region=eu&x=1", "b", "", []string{"k?region=eu&x=1"}},
		{"s3://b/a?b?region=eu", "b", "", []string{"a?b?region=eu"}},
		{"s3://b/k?region=%zz", "b", "", []string{"k?region=%zz"}},
		{"s3://b/p/child/..?region=eu", "b", "", []string{"p", "child", "..?region=eu"}},
		{"memory://m/k?region=eu", "m", "", []string{"k?region=eu"}},
		{"file:///tmp/a?b#c", "", "", []string{"tmp", "a?b#c"}},
		{"file:/tmp/x", "", "", []string{"tmp", "x"}},
	} {
		r, err := parseArg(c.arg, isScheme, params)
		require.NoError(t, err, c.arg)
		assert.Equal(t, c.authority, r.authority, c.arg)
		assert.Equal(t, c.query, r.query, c.arg)
		assert.Equal(t, c.segs, r.segs, c.arg)
	}
	for _, bad := range []string{"", "a\x00b", "s3:relative", "memory:", "s3://b#x/k", "s3://b?colour=red/k", "s3://b?region=eu&x=1/k"} {
		_, err := parseArg(bad, isScheme, params)
		assert.Error(t, err, "%q", bad)
	}
	for arg, odd := range map[string]string{"s3://b/p/child/..": "..", "s3://b?region=eu/p/../x": "..", "s3://b/src/./dot.txt": ".",
		"s3://b/src//empty.txt": "", "s3://b//x": "", "s3://b/x//": ""} {
		r, err := parseArg(arg, isScheme, params)
		require.NoError(t, err, arg)
		assert.True(t, r.hasOdd, arg)
		assert.Equal(t, odd, r.odd, arg)
	}
	for _, arg := range []string{"s3://b", "s3://b/", "s3://b/x/", "/tmp/x/", "x", "s3://b/..x/.y/z."} {
		r, err := parseArg(arg, isScheme, params)
		require.NoError(t, err, arg)
		assert.False(t, r.hasOdd, arg)
	}
	r, err := parseArg("nosuch:x", isScheme, params)
	require.NoError(t, err, "an unregistered scheme-like prefix is a local name")
	assert.Equal(t, []string{"nosuch:x"}, r.segs)
}

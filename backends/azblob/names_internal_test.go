package azblob

import (
	"net/url"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzSDKName: exactNames turns the name sdkName gives the SDK back into the
// exact name, in the path (percent-encoded as the SDK sends it) and as text.
func FuzzSDKName(f *testing.F) {
	for _, s := range []string{"a#b.txt", "a__0x23__b.txt", "__0x5f__", "_0x41__", "x___0x2f__y", "__0x", "__0x__", "__0x-1__", "ü__0xfc__", "a/b c%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if !utf8.ValidString(key) {
			t.Skip("blob names are UTF-8")
		}
		assert.Equal(t, key, unescapeName(sdkName(key), false))
		enc := url.PathEscape(sdkName(key))
		got, err := url.PathUnescape(unescapeName(enc, true))
		require.NoError(t, err)
		assert.Equal(t, key, got)
	})
}

// TestUnescapeNameUndoesTheDriver: names as gocloud's driver escapes them come
// back exact.
func TestUnescapeNameUndoesTheDriver(t *testing.T) {
	for escaped, want := range map[string]string{
		"a__0x23__b.txt":            "a#b.txt",
		"a__0x5f___0x23__b.txt":     "a__0x23__b.txt",
		"dir__0x2f__":               "dir/",
		"..__0x2f__x":               "../x",
		"tab__0x9__x":               "tab\tx",
		"part 0__0x23__1__0x3f__":   "part 0#1?",
		"looks__0x5f___0x41__":      "looks__0x41__",
		"plain/name with spaces.md": "plain/name with spaces.md",
	} {
		assert.Equal(t, want, unescapeName(escaped, false), "%q", escaped)
	}
	assert.Equal(t, "/c/a%23b%3F", unescapeName("/c/a__0x23__b__0x3f__", true))
}

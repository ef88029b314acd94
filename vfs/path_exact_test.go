package vfs_test

import (
	"errors"
	"io/fs"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// hostileNames are names that a listing may print and that must reach the same
// object when passed back.
var hostileNames = []string{
	"victim?keep", "a#b", "100%", "a%20b", "%2F", `bs\file`, `\`, "a b", " lead", "trail ",
	" ", "日本語", "ü", "__0x41__", "x?secret=1&y=2", "a:b", "C:", "~", "-rf", "*", "'\"",
	"\t", "e\u0301", "..a", "a..", "...",
}

func TestParsePathKeepsEveryCharacter(t *testing.T) {
	for _, name := range hostileNames {
		t.Run(name, func(t *testing.T) {
			for _, base := range []string{"s3://bucket/d", "memory://demo/d", "file:///tmp/d", "/tmp/d"} {
				p, err := vfs.ParsePath(base + "/" + name)
				require.NoError(t, err)
				assert.Equal(t, name, p.Name(), "name of %q", base+"/"+name)
				assert.Equal(t, vfs.MustPath(base), p.Parent())
				assert.Equal(t, vfs.MustPath(base).Join(name), p, "Join of the listed name is the same Path")
				back, err := vfs.ParsePath(p.String())
				require.NoError(t, err)
				assert.Equal(t, p, back, "ParsePath(String) round-trips %q", p.String())
			}
		})
	}
}

func TestParsePathDiffersFromNewPathOnlyOnBackslash(t *testing.T) {
	p, err := vfs.ParsePath(`s3://b/bs\file`)
	require.NoError(t, err)
	assert.Equal(t, `/bs\file`, p.Path())
	assert.Equal(t, "/bs/file", vfs.MustPath(`s3://b/bs\file`).Path(), "NewPath keeps Flink's \\ -> /")

	p, err = vfs.ParsePath(`\\server\share`)
	require.NoError(t, err)
	assert.Equal(t, "", p.Authority())
	assert.Equal(t, `\\server\share`, p.Path())
	assert.False(t, p.IsAbsolute(), "a relative name on a system where \\ is a character")

	for _, s := range []string{"/a/b", "s3://b/k?x=1#f", "file:///tmp/x", "C:/x", "c:", "./a:b", "//h/x", "a/../b", "/%41"} {
		q, err := vfs.ParsePath(s)
		require.NoError(t, err)
		assert.Equal(t, vfs.MustPath(s), q, s)
	}
}

func TestParsePathRejectsWhatItCannotRepresent(t *testing.T) {
	for _, in := range []string{"", "1x://a/b", "s3:relative", "ab:c", "a_b://x/y", ":/x"} {
		_, err := vfs.ParsePath(in)
		require.Error(t, err, in)
		assert.ErrorIs(t, err, fs.ErrInvalid)
		var pe *fs.PathError
		require.True(t, errors.As(err, &pe), "%T", err)
		assert.Equal(t, in, pe.Path, "the error names the input")
	}
}

func TestPathOfBuildsFromLiteralSegments(t *testing.T) {
	for _, name := range hostileNames {
		p, err := vfs.PathOf("s3", "bucket", "dir", name)
		require.NoError(t, err, name)
		assert.Equal(t, name, p.Name())
		assert.Equal(t, "s3://bucket/dir", p.Parent().String())
		back, err := vfs.ParsePath(p.String())
		require.NoError(t, err)
		assert.Equal(t, p, back)
	}
	root, err := vfs.PathOf("S3", "bucket")
	require.NoError(t, err)
	assert.Equal(t, "s3://bucket/", root.String())
	local, err := vfs.PathOf("", "", "tmp", "x")
	require.NoError(t, err)
	assert.Equal(t, "/tmp/x", local.String())

	for _, tc := range []struct {
		scheme, authority string
		segs              []string
		want              string
	}{
		{"s3", "b", []string{"a", ""}, `segment ""`},
		{"s3", "b", []string{"."}, `segment "."`},
		{"s3", "b", []string{".."}, `segment ".."`},
		{"s3", "b", []string{"a/b"}, `segment "a/b"`},
		{"s3", "b/c", nil, "authority"},
		{"3s", "b", nil, "scheme"},
		{"s3", "u:hunter2@b/c", nil, "authority"},
	} {
		_, err := vfs.PathOf(tc.scheme, tc.authority, tc.segs...)
		require.Error(t, err, "%v", tc)
		assert.ErrorIs(t, err, fs.ErrInvalid)
		assert.Contains(t, err.Error(), tc.want)
		assert.NotContains(t, err.Error(), "hunter2")
	}
}

func TestJoinKeepsBackslashAndResolvesDots(t *testing.T) {
	base := vfs.MustPath("memory://demo/d")
	assert.Equal(t, `/d/a\b`, base.Join(`a\b`).Path())
	assert.Equal(t, `/d/x/a\b`, base.Join(`x/a\b`).Path(), "'/' separates, '\\' does not")
	assert.Equal(t, "/d/y", base.Join("x", "..", "y").Path())
	assert.Equal(t, `/d/f\.tmp`, base.Join("f").Suffix(`\.tmp`).Path())
}

func TestURIDecodesUserInfoAndKeepsPathLiteral(t *testing.T) {
	p, err := vfs.ParsePath("memory://u:p%2Fa%23s%3Fs%22w%2540rd@h/a%20b")
	require.NoError(t, err)
	u := p.URI()
	pw, ok := u.User.Password()
	require.True(t, ok)
	assert.Equal(t, `p/a#s?s"w%40rd`, pw)
	assert.Equal(t, "u", u.User.Username())
	assert.Equal(t, "h", u.Host)
	assert.Equal(t, "/a%20b", u.Path, "a path is literal: '%' is a character")
	assert.Equal(t, "u:p%2Fa%23s%3Fs%22w%2540rd@h", u.User.String()+"@"+u.Host,
		"canonical encoding comes back the same, so the authority matches the file system's")
}

func TestUnmarshalTextReadsBackMarshalText(t *testing.T) {
	p := vfs.MustPath("s3://b/d").Join(`a\b?c`)
	b, err := p.MarshalText()
	require.NoError(t, err)
	var q vfs.Path
	require.NoError(t, q.UnmarshalText(b))
	assert.Equal(t, p, q)
}

// FuzzParsePath: ParsePath never panics, its errors wrap fs.ErrInvalid, and
// whatever String prints reads back to the same Path; Redacted and Redact never
// panic and never leave the user info of the parsed authority.
func FuzzParsePath(f *testing.F) {
	for _, s := range append([]string{"/a/b", "s3://b/k", "file:///tmp", "C:/x", `\\srv\x`, "./a:b", "a/../..",
		"x?y#z", "//", "s3://", "memory://u:p%2Fw@h/x", "//h", "C:", "c:x", "/C:", "s3://b/%", " /x "}, hostileNames...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = vfs.Redact(s)
		p, err := vfs.ParsePath(s)
		if err != nil {
			if !errors.Is(err, fs.ErrInvalid) {
				t.Fatalf("ParsePath(%q) error does not wrap fs.ErrInvalid: %v", s, err)
			}
			return
		}
		str := p.String()
		back, err := vfs.ParsePath(str)
		if err != nil {
			t.Fatalf("ParsePath(%q).String() = %q does not parse: %v", s, str, err)
		}
		if back != p {
			t.Fatalf("round trip of %q: %#v -> %q -> %#v", s, p, str, back)
		}
		if q, err := vfs.ParsePath(p.Join("n").String()); err != nil || q != p.Join("n") {
			t.Fatalf("Join of %q does not round-trip: %v", str, err)
		}
		red := p.Redacted()
		scheme := ""
		if p.Scheme() != "" {
			scheme = p.Scheme() + ":"
		}
		if strings.Contains(p.Authority(), "@") && !strings.HasPrefix(red, scheme+"//xxxxx@") {
			t.Fatalf("Redacted(%q) = %q shows the user info", str, red)
		}
		_ = p.Parent()
		_ = p.Depth()
		_ = p.URI().String()
	})
}

// TestURIRoundTripsEveryName: URI().String() escapes what it must, and
// url.Parse of it gives back the path, the host and the user info.
func TestURIRoundTripsEveryName(t *testing.T) {
	for _, name := range append(hostileNames, "\x01ctl", "a\x7fb", "\xff\xfe") {
		p, err := vfs.PathOf("memory", "u:p%2Fa%23s%3Fs%22w%2540rd@h", "d", name)
		require.NoError(t, err)
		u, err := url.Parse(p.URI().String())
		require.NoError(t, err, "%q", name)
		assert.Equal(t, p.Path(), u.Path, "%q", name)
		assert.Equal(t, "h", u.Host)
		pw, _ := u.User.Password()
		assert.Equal(t, `p/a#s?s"w%40rd`, pw)
		assert.Equal(t, "memory://xxxxx@h/d", vfs.RedactURL(p.Parent().URI()))
	}
}

package vfs_test

import (
	"errors"
	"io/fs"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

func TestNewPathParsesAndNormalizes(t *testing.T) {
	tests := []struct {
		in                      string
		scheme, authority, path string
		str                     string
	}{
		{"/tmp/x", "", "", "/tmp/x", "/tmp/x"},
		{"/tmp/x/", "", "", "/tmp/x", "/tmp/x"},
		{"/", "", "", "/", "/"},
		{"//", "", "", "/", "/"},
		{"/a//b///c", "", "", "/a/b/c", "/a/b/c"},
		{`\a\b`, "", "", "/a/b", "/a/b"},
		{"a/b", "", "", "a/b", "a/b"},
		{"a/b/", "", "", "a/b", "a/b"},
		{"./a", "", "", "a", "a"},
		{".", "", "", ".", "."},
		{"a/..", "", "", ".", "."},
		{"../a", "", "", "../a", "../a"},
		{"/a/./b/../c", "", "", "/a/c", "/a/c"},
		{"/..", "", "", "/", "/"},
		{"file:///tmp/x", "file", "", "/tmp/x", "file:///tmp/x"},
		{"file:/tmp/x", "file", "", "/tmp/x", "file:///tmp/x"},
		{"FILE:///tmp", "file", "", "/tmp", "file:///tmp"},
		{"s3://bucket/a/b", "s3", "bucket", "/a/b", "s3://bucket/a/b"},
		{"s3://bucket", "s3", "bucket", "/", "s3://bucket/"},
		{"s3://bucket/", "s3", "bucket", "/", "s3://bucket/"},
		{"hdfs://host:9000/a", "hdfs", "host:9000", "/a", "hdfs://host:9000/a"},
		{"memory://demo/checkpoints", "memory", "demo", "/checkpoints", "memory://demo/checkpoints"},
		{"C:/x", "", "", "/C:/x", "C:/x"},
		{`C:\x\y`, "", "", "/C:/x/y", "C:/x/y"},
		{"c:", "", "", "/c:", "c:"},
		{"C:/", "", "", "/C:/", "C:/"},
		{"file:/C:/x", "file", "", "/C:/x", "file:///C:/x"},
		{"./a:b", "", "", "a:b", "./a:b"},
		{"/a b/c%20d/e+f#g?h", "", "", "/a b/c%20d/e+f#g?h", "/a b/c%20d/e+f#g?h"},
		{"s3://b/k?x=1", "s3", "b", "/k?x=1", "s3://b/k?x=1"},
		{"/ü/日本", "", "", "/ü/日本", "/ü/日本"},
		{"//host/share", "", "host", "/share", "//host/share"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, err := vfs.NewPath(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.scheme, p.Scheme(), "scheme")
			assert.Equal(t, tt.authority, p.Authority(), "authority")
			assert.Equal(t, tt.path, p.Path(), "path")
			assert.Equal(t, tt.str, p.String(), "String")
			back, err := vfs.NewPath(p.String())
			require.NoError(t, err)
			assert.Equal(t, p, back, "String round-trips")
		})
	}
}

func TestNewPathRejectsBadInput(t *testing.T) {
	for _, in := range []string{"", "1x://a/b", "s3:relative", "ab:", "a_b://x/y", ":/x"} {
		t.Run(in, func(t *testing.T) {
			_, err := vfs.NewPath(in)
			require.Error(t, err)
			assert.ErrorIs(t, err, fs.ErrInvalid)
			var pe *fs.PathError
			require.True(t, errors.As(err, &pe), "error is *fs.PathError: %T", err)
			assert.Equal(t, in, pe.Path, "error names the input")
		})
	}
	assert.Panics(t, func() { vfs.MustPath("") })
}

func TestPathIsComparable(t *testing.T) {
	a := vfs.MustPath("s3://b/x/")
	b := vfs.MustPath("s3://b//x")
	assert.True(t, a == b)
	m := map[vfs.Path]int{a: 1}
	assert.Equal(t, 1, m[b])
	assert.NotEqual(t, vfs.MustPath("s3://b/x"), vfs.MustPath("s3://c/x"))
	assert.NotEqual(t, vfs.MustPath("/x"), vfs.MustPath("file:///x"), "scheme is part of identity")
	assert.True(t, vfs.Path{}.IsZero())
	assert.False(t, a.IsZero())
}

func TestPathAccessors(t *testing.T) {
	tests := []struct {
		in       string
		name     string
		parent   string // "" = zero Path
		depth    int
		absolute bool
	}{
		{"/", "", "", 0, true},
		{"/a", "a", "/", 1, true},
		{"/a/b", "b", "/a", 2, true},
		{"a", "a", ".", 1, false},
		{"a/b", "b", "a", 2, false},
		{".", ".", "", 1, false},
		{"s3://bkt/", "", "", 0, true},
		{"s3://bkt/k", "k", "s3://bkt/", 1, true},
		{"s3://bkt/a/b/c", "c", "s3://bkt/a/b", 3, true},
		{"C:/", "", "", 2, true}, // Flink counts the drive
		{"C:/x", "x", "C:/", 2, true},
		{"C:", "C:", "", 1, false}, // Flink: "C:" is relative
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p := vfs.MustPath(tt.in)
			assert.Equal(t, tt.name, p.Name(), "Name")
			assert.Equal(t, tt.depth, p.Depth(), "Depth")
			assert.Equal(t, tt.absolute, p.IsAbsolute(), "IsAbsolute")
			if tt.parent == "" {
				assert.True(t, p.Parent().IsZero(), "Parent is zero, got %q", p.Parent())
			} else {
				assert.Equal(t, vfs.MustPath(tt.parent), p.Parent(), "Parent")
			}
		})
	}
	assert.True(t, vfs.Path{}.Parent().IsZero())
	assert.Equal(t, 0, vfs.Path{}.Depth())
	assert.Equal(t, "", vfs.Path{}.String())
}

func TestPathResolveFollowsFlink(t *testing.T) {
	tests := []struct{ parent, child, want string }{
		{"/a/b", "c", "/a/b/c"},
		{"/a/b", "/c", "/a/b/c"}, // one leading slash of the child is stripped
		{"/a/b", "c/d/", "/a/b/c/d"},
		{"/a/b", "../c", "/a/c"},
		{"/a/b", ".", "/a/b"},
		{"/", "x", "/x"},
		{"s3://bkt/base", "chk-1/_metadata", "s3://bkt/base/chk-1/_metadata"},
		{"s3://bkt/", "x", "s3://bkt/x"},
		{"rel", "x", "rel/x"},
		{".", "x", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.parent+"+"+tt.child, func(t *testing.T) {
			got, err := vfs.MustPath(tt.parent).Resolve(tt.child)
			require.NoError(t, err)
			assert.Equal(t, vfs.MustPath(tt.want), got)
		})
	}
	for _, child := range []string{"", "//other/x", "s3://other/x", "file:///other", "s3:/x"} {
		_, err := vfs.MustPath("s3://bkt/a").Resolve(child)
		assert.ErrorIs(t, err, fs.ErrInvalid, "child %q", child)
	}
}

func TestPathJoinAndSuffix(t *testing.T) {
	base := vfs.MustPath("s3://bkt/a")
	assert.Equal(t, vfs.MustPath("s3://bkt/a/b/c"), base.Join("b", "c"))
	assert.Equal(t, vfs.MustPath("s3://bkt/a/b/c"), base.Join("b/", "", "/c"))
	assert.Equal(t, vfs.MustPath("s3://bkt/b"), base.Join("..", "b"))
	assert.Equal(t, vfs.MustPath("s3://bkt/a/x y#1?"), base.Join("x y#1?"))
	assert.Equal(t, base, base.Join())
	assert.Equal(t, vfs.MustPath("x/y"), vfs.Path{}.Join("x", "y"))
	assert.Equal(t, vfs.MustPath("s3://bkt/a.tmp"), base.Suffix(".tmp"))
	assert.Equal(t, vfs.MustPath("/x"), vfs.MustPath("/").Suffix("x"))
}

func TestPathURI(t *testing.T) {
	u := vfs.MustPath("s3://bkt/a b/%c").URI()
	assert.Equal(t, "s3", u.Scheme)
	assert.Equal(t, "bkt", u.Host)
	assert.Equal(t, "/a b/%c", u.Path)
	back, err := url.Parse(u.String())
	require.NoError(t, err)
	assert.Equal(t, "/a b/%c", back.Path, "URI escapes what it must")

	u = vfs.MustPath("ftp://user:pw@host:21/x").URI()
	assert.Equal(t, "host:21", u.Host)
	assert.Equal(t, "user", u.User.Username())
	assert.Equal(t, "file:///tmp/x", vfs.MustPath("file:///tmp/x").URI().String())
}

func TestPathTextMarshalling(t *testing.T) {
	p := vfs.MustPath("s3://bkt/a/b")
	b, err := p.MarshalText()
	require.NoError(t, err)
	var q vfs.Path
	require.NoError(t, q.UnmarshalText(b))
	assert.Equal(t, p, q)
	assert.ErrorIs(t, q.UnmarshalText(nil), fs.ErrInvalid)
}

func FuzzNewPath(f *testing.F) {
	for _, s := range []string{"/a/b", "s3://b/k", "file:///tmp", "C:/x", `\\srv\x`, "./a:b", "a/../..", "x?y#z", "//", "s3://"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := vfs.NewPath(s)
		if err != nil {
			if !errors.Is(err, fs.ErrInvalid) {
				t.Fatalf("NewPath(%q) error does not wrap fs.ErrInvalid: %v", s, err)
			}
			return
		}
		back, err := vfs.NewPath(p.String())
		if err != nil {
			t.Fatalf("NewPath(%q).String() = %q does not parse: %v", s, p.String(), err)
		}
		if back != p {
			t.Fatalf("round trip of %q: %#v -> %q -> %#v", s, p, p.String(), back)
		}
		_ = p.Parent()
		_ = p.Depth()
		_ = p.Name()
		_ = p.URI().String()
	})
}

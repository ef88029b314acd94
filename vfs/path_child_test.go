package vfs

import (
	"strings"
	"testing"
)

// Join of one name takes a shortcut (child) that must give the Path the full
// normalization gives, for every path a constructor can make.
func TestJoinOfOneNameAgreesWithNormalization(t *testing.T) {
	for _, uri := range []string{
		"s3://b/", "s3://b/a", "s3://b/a/b", "s3://b/a/../c", "s3://b/./a", "s3://b//a//",
		"memory://m/x y", "gs://b/C:", "s3://b/..", "a/b", "..", "../..", ".", "/", "/C:", "/C:/a",
		"C:", "file:///C:/", "file:///x", "relative", "s3://b/?q", "s3://b/a\\b",
	} {
		p, err := ParsePath(uri)
		if err != nil {
			continue
		}
		for _, name := range []string{"x", "C:", "a.b", "...", ".x", "x\\y", "?", "é", "", ".", "..", "a/b", "/x", "x/"} {
			checkJoinOfOne(t, p, name)
		}
	}
	for _, segs := range [][]string{{}, {"a"}, {"a", "C:"}, {"x y", "...", "?"}} {
		p, err := PathOf("s3", "b", segs...)
		if err != nil {
			t.Fatal(err)
		}
		checkJoinOfOne(t, p, "n")
		checkJoinOfOne(t, p.Parent(), "n")
		checkJoinOfOne(t, p.Suffix(".tmp"), "n")
	}
}

// FuzzJoinOfOneName checks the shortcut against the full normalization.
func FuzzJoinOfOneName(f *testing.F) {
	f.Add("s3://b/a/b", "c")
	f.Add("memory://m/", "C:")
	f.Add("file:///C:/", "x")
	f.Add("rel/..", "x")
	f.Fuzz(func(t *testing.T, uri, name string) {
		if p, err := ParsePath(uri); err == nil {
			checkJoinOfOne(t, p, name)
		}
	})
}

func checkJoinOfOne(t *testing.T, p Path, name string) {
	t.Helper()
	parts := []string{}
	if p.path != "" {
		parts = append(parts, p.path)
	}
	if name != "" {
		parts = append(parts, name)
	}
	want := p
	if len(parts) > 0 {
		want = Path{scheme: p.scheme, authority: p.authority, path: normalizePath(strings.Join(parts, "/"), drives(p.scheme))}
	}
	if got := p.Join(name); got != want {
		t.Errorf("%#v.Join(%q) = %#v, want %#v", p, name, got, want)
	}
}

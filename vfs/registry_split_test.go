package vfs

import "testing"

// splitSimple must agree with ParsePath wherever it answers, or Get's cache
// lookup would find another file system than the parsed path names.
func TestSplitSimpleAgreesWithParsePath(t *testing.T) {
	for _, uri := range []string{
		"memory://bench/", "memory://bench", "memory://", "memory:///x", "s3://bucket/a/b?c",
		"s3://u:p%2Fw@bucket/k", "S3://bucket/", "s3://b\\x/y", "s3:/x", "c://x/", "x+y.z-1://h/p",
		"1s://h/", "s3://bucket//a", "file:///tmp/x", "file://host/x", "/plain/path", "rel", "a://",
		"s3://bucket\\/x", "s3://:/x", "s3://b/..", "s3://b/?", "é3://b/",
	} {
		scheme, authority, ok := splitSimple(uri)
		if !ok {
			continue
		}
		p, err := ParsePath(uri)
		if err != nil {
			t.Errorf("splitSimple(%q) = %q, %q but ParsePath fails: %v", uri, scheme, authority, err)
			continue
		}
		if p.Scheme() != scheme || p.Authority() != authority {
			t.Errorf("splitSimple(%q) = %q, %q; ParsePath: %q, %q", uri, scheme, authority, p.Scheme(), p.Authority())
		}
	}
}

func FuzzSplitSimple(f *testing.F) {
	for _, s := range []string{"memory://bench/", "s3://b\\x/y", "a://", "ab://c?d/e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		scheme, authority, ok := splitSimple(uri)
		if !ok {
			return
		}
		p, err := ParsePath(uri)
		if err != nil || p.Scheme() != scheme || p.Authority() != authority {
			t.Fatalf("splitSimple(%q) = %q, %q; ParsePath: %v, %v", uri, scheme, authority, p, err)
		}
	})
}

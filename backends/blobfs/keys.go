package blobfs

import (
	"strings"
	"unicode/utf8"

	"github.com/vfskit/vfskit/vfs"
)

// keyOf returns the object key for a qualified path: exactly the path without its
// leading "/" ("" for the root).
func keyOf(p vfs.Path) string { return strings.TrimPrefix(p.Path(), "/") }

// dirPrefix returns the listing prefix of the directory with key k: "k/", or ""
// for the root.
func dirPrefix(k string) string {
	if k == "" {
		return ""
	}
	return k + "/"
}

// qualifiedKey is vfs.Qualify followed by checkKey: the path of p on f, for op,
// and its object key.
func (f *FileSystem) qualifiedKey(op string, p vfs.Path) (vfs.Path, string, error) {
	q, err := vfs.Qualify(op, f, p)
	if err != nil {
		return vfs.Path{}, "", err
	}
	k, err := f.checkKey(op, q)
	if err != nil {
		return vfs.Path{}, "", err
	}
	return q, k, nil
}

// checkKey validates the key of p for the bucket: valid UTF-8 and, when the store
// has a limit, not longer than Options.MaxKeyLength bytes.
func (f *FileSystem) checkKey(op string, p vfs.Path) (string, error) {
	k := keyOf(p)
	if !utf8.ValidString(k) {
		return "", invalid(op, p, "object key %q is not valid UTF-8", k)
	}
	if max := f.opts.MaxKeyLength; max > 0 && len(k) > max {
		return "", invalid(op, p, "object key is %d bytes long; the store allows at most %d", len(k), max)
	}
	return k, nil
}

// childName returns the entry name of a listed key under prefix and whether it
// is a directory, and whether that name is a single path segment that a
// vfs.Path can represent (a directory marker "dir/", empty segments, "." and
// "..", and names that Path would normalize differently, such as ones
// containing '\', are not).
//
// A listed object whose name still holds a '/' can only come from a driver that
// stores some keys escaped (s3blob stores "a../b" as "a..__0x2f__b", which a
// delimiter listing cannot split): its first segment is reported as a
// directory, so List agrees with Stat.
func childName(parent vfs.Path, prefix, key string, isDir bool) (string, bool, bool) {
	name := strings.TrimPrefix(key, prefix)
	if isDir {
		name = strings.TrimSuffix(name, "/")
	}
	if first, _, found := strings.Cut(name, "/"); found && !isDir {
		name, isDir = first, true
	}
	if name == "" || name == "." || name == ".." || strings.Contains(name, "/") {
		return "", false, false
	}
	if parent.Join(name).Name() != name {
		return "", false, false
	}
	return name, isDir, true
}

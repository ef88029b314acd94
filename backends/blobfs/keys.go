package blobfs

import (
	"bytes"
	"context"
	"strings"
	"unicode/utf8"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// Exact keys
//
// Some gocloud drivers rewrite keys on their way to the store (s3blob escapes
// control characters, "../", and text that looks like its own "__0x41__"
// escapes) and undo the rewrite on keys they list. That is a faithful round
// trip for keys the driver wrote, but not for keys any other client wrote. A
// Store that implements ExactKeys (the s3 backend's) makes blobfs send every
// key as is: listings report the keys the service returned, and every request
// carries the key of the path exactly, through the Store's hooks. A name that a
// listing shows then always reaches the same object, whoever wrote it. Without
// one, keys go through the driver.

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
	return f.qualified(op, p, f.checkKey)
}

// qualifiedNewKey is qualifiedKey with checkNewKey, for a key to be written.
func (f *FileSystem) qualifiedNewKey(op string, p vfs.Path) (vfs.Path, string, error) {
	return f.qualified(op, p, f.checkNewKey)
}

func (f *FileSystem) qualified(op string, p vfs.Path, check func(string, vfs.Path) (string, error)) (vfs.Path, string, error) {
	q, err := vfs.Qualify(op, f, p)
	if err != nil {
		return vfs.Path{}, "", err
	}
	k, err := check(op, q)
	if err != nil {
		return vfs.Path{}, "", err
	}
	return q, k, nil
}

// checkKey validates the key of p for the bucket: valid UTF-8, no '\' when
// Options.RefuseBackslash, accepted by Options.Store, and, when the store has a
// limit, not longer than Options.MaxKeyLength bytes.
func (f *FileSystem) checkKey(op string, p vfs.Path) (string, error) {
	return f.checkKeyFor(op, p, false)
}

// checkNewKey is checkKey for a key about to be written (the Store may refuse
// more, such as control characters a store keeps but cannot list).
func (f *FileSystem) checkNewKey(op string, p vfs.Path) (string, error) {
	return f.checkKeyFor(op, p, true)
}

func (f *FileSystem) checkKeyFor(op string, p vfs.Path, write bool) (string, error) {
	k := keyOf(p)
	if !utf8.ValidString(k) {
		return "", invalid(op, p, "object key %q is not valid UTF-8, which object stores require of every key", k)
	}
	if f.opts.RefuseBackslash && strings.Contains(k, `\`) {
		return "", invalid(op, p, "object key %q holds '\\', which this store turns into '/', so it would name another object", k)
	}
	if f.opts.Store != nil {
		if err := f.opts.Store.CheckKey(k, write); err != nil {
			return "", invalid(op, p, "%v", err)
		}
	}
	if max := f.opts.MaxKeyLength; max > 0 && len(k) > max {
		return "", invalid(op, p, "object key is %d bytes long; the store allows at most %d", len(k), max)
	}
	return k, nil
}

// childName returns the entry name and path of a listed key under prefix and
// whether it is a directory, and whether that name is a single path segment that a
// vfs.Path can represent (a directory marker "dir/", empty segments, "." and
// "..", and names that Path would not keep as they are, are not).
//
// A listed object whose name still holds a '/' can only come from a driver that
// stores some keys escaped (s3blob stores "a../b" as "a..__0x2f__b", which a
// delimiter listing cannot split): its first segment is reported as a
// directory, so List agrees with Stat.
func childName(parent vfs.Path, prefix, key string, isDir bool) (string, vfs.Path, bool, bool) {
	name := strings.TrimPrefix(key, prefix)
	if isDir {
		name = strings.TrimSuffix(name, "/")
	}
	if first, _, found := strings.Cut(name, "/"); found && !isDir {
		name, isDir = first, true
	}
	if name == "" || name == "." || name == ".." || strings.Contains(name, "/") {
		return "", vfs.Path{}, false, false
	}
	child := parent.Join(name)
	if child.Name() != name {
		return "", vfs.Path{}, false, false
	}
	return name, child, isDir, true
}

// listPage lists one page of keys under prefix (with delimiter, if any):
// through the Store when it is a Lister; otherwise through the driver, and with
// exact keys the prefix is sent as is and every object's Key is the key the
// store returned.
func (f *FileSystem) listPage(ctx context.Context, token []byte, n int, prefix, delimiter string) ([]*blob.ListObject, []byte, error) {
	if l, ok := f.opts.Store.(Lister); ok {
		if bytes.Equal(token, blob.FirstPageToken) {
			token = nil
		}
		return l.ListPage(ctx, prefix, delimiter, token, n)
	}
	opts := &blob.ListOptions{Prefix: prefix, Delimiter: delimiter}
	if f.exact != nil {
		opts.BeforeList = f.exact.BeforeList(prefix)
	}
	objs, next, err := f.b.ListPage(ctx, token, n, opts)
	if err != nil || f.exact == nil {
		return objs, next, err
	}
	for _, o := range objs {
		if o.Key, err = f.exact.ListedKey(o); err != nil {
			return nil, nil, err
		}
	}
	return objs, next, nil
}

// attributes HEADs the object k: its size, modification time and metadata.
func (f *FileSystem) attributes(ctx context.Context, k string) (*blob.Attributes, error) {
	if f.exact != nil {
		return f.exact.Attributes(ctx, k)
	}
	return f.b.Attributes(ctx, k)
}

// rangeReader GETs length bytes (-1: to the end) of the object k from offset.
func (f *FileSystem) rangeReader(ctx context.Context, k string, offset, length int64) (*blob.Reader, error) {
	return f.rangeReaderIf(ctx, k, offset, length, "")
}

// rangeReaderIf is rangeReader conditional on the object being at version v
// (see ConditionalReader), when v is not "" and the Store can send the
// condition.
func (f *FileSystem) rangeReaderIf(ctx context.Context, k string, offset, length int64, v string) (*blob.Reader, error) {
	var exact, cond func(func(any) bool) error
	if f.exact != nil {
		exact = f.exact.BeforeRead(k)
	}
	if f.cond != nil && v != "" {
		cond = f.cond.BeforeReadVersion(v)
	}
	var opts *blob.ReaderOptions
	if hook := chain(exact, cond); hook != nil {
		opts = &blob.ReaderOptions{BeforeRead: hook}
	}
	return f.b.NewRangeReader(ctx, k, offset, length, opts)
}

// beforeWrite returns the writer hook for the object k (written only if it
// does not exist when ifNotExist): the exact key, then Options.BeforeWrite.
func (f *FileSystem) beforeWrite(k string, ifNotExist bool) func(func(any) bool) error {
	if f.exact == nil {
		return f.opts.BeforeWrite
	}
	if cw, ok := f.exact.(ExactConditionalWriter); ok {
		return chain(cw.BeforeWriteIf(k, ifNotExist), f.opts.BeforeWrite)
	}
	return chain(f.exact.BeforeWrite(k), f.opts.BeforeWrite)
}

// copy copies the object src to dst server-side: the exact keys, then
// Options.BeforeCopy, then extra (if any) prepare the request.
func (f *FileSystem) copy(ctx context.Context, dst, src string, extra func(func(any) bool) error) error {
	var exact func(func(any) bool) error
	if f.exact != nil {
		exact = f.exact.BeforeCopy(dst, src)
	}
	return f.b.Copy(ctx, dst, src, &blob.CopyOptions{BeforeCopy: chain(exact, f.opts.BeforeCopy, extra)})
}

// chain returns a driver hook running the non-nil hooks in order, or nil when
// there is none.
func chain(hooks ...func(func(any) bool) error) func(func(any) bool) error {
	var run []func(func(any) bool) error
	for _, h := range hooks {
		if h != nil {
			run = append(run, h)
		}
	}
	if len(run) == 0 {
		return nil
	}
	return func(as func(any) bool) error {
		for _, h := range run {
			if err := h(as); err != nil {
				return err
			}
		}
		return nil
	}
}

package blobfs

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// MaxDeleteBatch is the most keys one batch delete takes (S3 DeleteObjects'
// limit): the size of BatchDeleter.DeleteBatch's batches.
const MaxDeleteBatch = 1000

// fallbackDeleteConcurrency is how many single-key deletes run at once on a
// bucket without batch deletes.
const fallbackDeleteConcurrency = 8

// Delete removes the object at p or, when p is a directory, everything under it.
//
// Non-recursive: it HEADs p and deletes the object if there is one; otherwise it
// lists at most two keys under "p/" and fails with vfs.ErrDirNotEmpty (deleting
// nothing) when there is any key other than a directory marker "p/". It then
// deletes the empty directory's markers ("p/", "p_$folder$", a folder object
// p) in one batch; with Options.DirectoryEntries the key p too, which removes
// the store's entry for the empty directory, and it lists "p/" again: a key
// written there meanwhile fails the delete with vfs.ErrDirNotEmpty.
//
// Recursive: it streams the listing of the prefix "p" page by page into
// batched deletes (up to 1,000 keys a request when Options.Store is a
// BatchDeleter, as S3 DeleteObjects is; single deletes otherwise) of the object
// p, when the listing shows it, and every key under "p/": N keys cost
// ⌈N/1,000⌉ listings and ⌈N/1,000⌉ deletes (see deleteTree for siblings that
// share the prefix). A key under "p/" that no path names (an empty, "." or
// ".." segment: "p/./x", "p//x", "p/sub/..") is never deleted: the delete
// fails with fs.ErrInvalid naming it, before any delete when the tree has at
// most 100,000 keys. With Options.DirectoryEntries the key p is always
// deleted, last, which removes the store's entry for the directory: ⌈(N+1)/1,000⌉
// deletes. Deleting the whole bucket recursively ("/") is refused with
// fs.ErrInvalid.
//
// A missing path is not an error.
func (f *FileSystem) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	q, k, err := f.qualifiedKey("delete", p)
	if err != nil {
		return err
	}
	if recursive {
		if k == "" {
			return invalid("delete", q, "refusing to delete the whole bucket recursively")
		}
		return f.pathError("delete", q, f.deleteTree(ctx, k))
	}
	folder := false
	if k != "" {
		st, found, err := f.statObject(ctx, q, k)
		if err != nil {
			return f.pathError("delete", q, err)
		}
		if found && !st.IsDir {
			return f.pathError("delete", q, f.deleteKeys(ctx, []string{k}))
		}
		folder = found
	}
	prefix := dirPrefix(k)
	objs, _, err := f.listPage(ctx, blob.FirstPageToken, 2, prefix, "")
	if err != nil {
		return f.pathError("delete", q, err)
	}
	var markers []string
	for _, o := range objs {
		if o.Key != prefix || k == "" {
			return vfs.NewPathError("delete", q, vfs.ErrDirNotEmpty)
		}
		markers = append(markers, prefix)
	}
	if k != "" {
		// The directory is empty: its other markers go too (a missing
		// one is fine).
		markers = append(markers, k+HadoopFolderSuffix)
		if folder {
			markers = append(markers, k)
		}
	}
	if f.opts.DirectoryEntries && k != "" && !folder {
		// The store's entry for the emptied directory, which it would
		// list for minutes: the key of its name removes it while the
		// directory holds nothing, and leaves it (and what it holds)
		// otherwise.
		markers = append(markers, k)
	}
	err = f.deleteKeys(ctx, markers)
	if f.opts.DirectoryEntries && k != "" {
		// Listing again tells a key written meanwhile.
		objs, _, lerr := f.listPage(ctx, blob.FirstPageToken, 1, prefix, "")
		switch {
		case lerr == nil && len(objs) > 0:
			return vfs.NewPathError("delete", q, vfs.ErrDirNotEmpty)
		case err != nil:
			return f.pathError("delete", q, err)
		case lerr != nil:
			return f.pathError("delete", q, lerr)
		}
	}
	return f.pathError("delete", q, err)
}

// deleteLookahead is how many keys a recursive Delete lists, and checks (see
// nameable), before it sends its first delete: a tree of up to this many keys
// that holds a key no path can name is refused before anything is deleted.
const deleteLookahead = 100 * MaxDeleteBatch

// deleteTree deletes the key k and every key under "k/", streaming the
// listing into batches of at most MaxDeleteBatch keys.
//
// It lists the prefix "k" rather than "k/", so the listing itself says whether
// the object k exists and the object costs no request of its own: N keys under
// "k/" take ⌈N/1,000⌉ listings and ⌈N/1,000⌉ batch deletes, plus the object k
// only when it exists. Keys under that prefix that are neither k nor under
// "k/" (siblings such as "k-old" or "k0") are never deleted. When a page held
// such a sibling and more pages follow, the listing switches to the prefix
// "k/" from its start, so that many siblings are not paged through: the
// unsent keys are dropped (the new listing returns them again) and, since a
// listing in another order than S3's may not have shown k yet, k is then
// deleted without knowing whether it exists. With Options.DirectoryEntries k
// is always deleted, last.
//
// Every key is checked before it is sent (see nameable): a key that no path
// names ("k/./x", "k//x", "k/sub/..") makes the delete fail with fs.ErrInvalid,
// naming the key, and that key is never deleted. The first deleteLookahead
// keys are listed and checked before the first delete, so a tree of up to
// that many keys is refused whole.
func (f *FileSystem) deleteTree(ctx context.Context, k string) error {
	prefix := dirPrefix(k)
	var pending []string // listed and checked, not yet sent
	deleted := 0
	send := func(all bool) error {
		for len(pending) > deleteLookahead || all && len(pending) > 0 {
			n := min(len(pending), MaxDeleteBatch)
			if err := f.deleteKeys(ctx, pending[:n]); err != nil {
				return err
			}
			deleted += n
			pending = pending[n:]
		}
		return nil
	}
	var sawK, sawMarker, switched bool
	token := blob.FirstPageToken
	listPrefix := k
	for range maxPages {
		objs, next, err := f.listPage(ctx, token, f.opts.ListPageSize, listPrefix, "")
		if err != nil {
			return err
		}
		sibling := false
		for _, o := range objs {
			switch {
			case o.Key == k:
				sawK = true
			case strings.HasPrefix(o.Key, prefix):
				if !nameable(o.Key[len(prefix):]) {
					return unnameable(o.Key, deleted)
				}
			case o.Key == k+HadoopFolderSuffix:
				sawMarker = true
			default:
				sibling = true
				continue
			}
			pending = append(pending, o.Key)
		}
		if len(next) == 0 {
			if !sawK && (switched || f.opts.DirectoryEntries) {
				pending = append(pending, k)
			}
			if !sawMarker && switched {
				pending = append(pending, k+HadoopFolderSuffix)
			}
			return send(true)
		}
		if err := send(false); err != nil {
			return err
		}
		token = next
		if sibling && !switched {
			switched, listPrefix, token = true, prefix, blob.FirstPageToken
			pending = pending[:0]
			if sawK {
				pending = append(pending, k)
			}
			if sawMarker {
				pending = append(pending, k+HadoopFolderSuffix)
			}
		}
	}
	return fmt.Errorf("listing %q did not end after %d pages", k, maxPages)
}

// nameable reports whether rel, a key's text after its directory's prefix
// "d/", names something a vfs.Path reaches: "" (the marker "d/" itself) or
// '/'-separated names, none of them "", "." or "..", with at most one
// trailing '/' (the marker of a subdirectory, "d/sub/").
func nameable(rel string) bool {
	if rel == "" {
		return true
	}
	rel = strings.TrimSuffix(rel, "/")
	for {
		seg, more, found := strings.Cut(rel, "/")
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		if !found {
			return true
		}
		rel = more
	}
}

// unnameable is the error of a recursive delete that met the key k, which no
// path names, after deleting deleted keys.
func unnameable(k string, deleted int) error {
	done := "nothing was deleted"
	if deleted > 0 {
		done = fmt.Sprintf("%d keys listed before it were deleted", deleted)
	}
	return fmt.Errorf("%w: refusing to delete the key %q: an empty, \".\" or \"..\" segment in it names no path, so no listing shows it (%s; rename or remove it with the store's own tools)",
		fs.ErrInvalid, k, done)
}

// deleteKeys deletes keys (missing keys are fine) with as few requests as the
// bucket allows.
func (f *FileSystem) deleteKeys(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	batcher, ok := f.opts.Store.(BatchDeleter)
	if !ok {
		return f.deleteEach(ctx, keys)
	}
	for len(keys) > 0 {
		n := min(len(keys), MaxDeleteBatch)
		if err := batcher.DeleteBatch(ctx, keys[:n]); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

// deleteEach deletes keys one request each, a few at a time, ignoring missing keys.
func (f *FileSystem) deleteEach(ctx context.Context, keys []string) error {
	return forEachKey(keys, fallbackDeleteConcurrency, func(k string) error {
		if err := f.b.Delete(ctx, k); err != nil && !f.isNotFound(err) {
			return err
		}
		return nil
	})
}

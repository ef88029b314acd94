package blobfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// renameCopyConcurrency is how many server-side copies a directory rename runs at
// once.
const renameCopyConcurrency = 8

// Rename moves src to dst with conditional server-side copies followed by
// conditional deletes: it deletes at src only the version it copied.
//
// For each object it reads the version (one HEAD: the ETag or generation
// where the Store tells it, else size and modification time), copies that
// version and deletes the source only if it is still that version
// (DeleteVersion; a conditional delete where the store has one). The copy is
// conditional on the source's version where the Store can send that
// (SourceConditionalCopier: S3's x-amz-copy-source-if-match, Azure's
// x-ms-source-if-match); a copy streamed through this process (no
// ConditionalCopier) checks the version it read. So a version written to the
// source while the rename runs is never deleted: that source object stays
// with its new bytes, dst holds the version that was copied (or, when the
// change came before the copy, nothing), and Rename fails with an
// *fs.PathError wrapping vfs.ErrChanged that names it. For a directory the
// other objects still move, and the error names every object that stayed.
//
// Every copy is also a create of a new object (S3 CopyObject with
// If-None-Match: *; on other drivers a read streamed into a conditional
// write), so between renames racing onto one destination file exactly one wins
// and the others fail with fs.ErrExist and keep their sources; a rename never
// replaces an object. It is NOT atomic for readers: they may see both src and
// dst while it runs, or, for a directory, part of the tree at either place. A
// failure part way leaves the objects copied so far at dst and the rest at src
// (nothing is lost; an object whose delete failed is at both). A directory
// moves every key under "src/" to the same relative key under "dst/",
// streaming the listing page by page; a key added under "src/" while it runs
// may stay there (it is never deleted uncopied). An existing dst (src itself
// included) fails with fs.ErrExist, a missing src with fs.ErrNotExist, and dst
// inside src with fs.ErrInvalid.
func (f *FileSystem) Rename(ctx context.Context, src, dst vfs.Path) error {
	qs, ks, err := f.qualifiedKey("rename", src)
	if err != nil {
		return err
	}
	qd, kd, err := f.qualifiedNewKey("rename", dst)
	if err != nil {
		return err
	}
	if ks == "" || kd == "" {
		return invalid("rename", qs, "cannot rename from or onto the bucket root (rename %s to %s)", qs, qd)
	}
	if strings.HasPrefix(kd+"/", ks+"/") {
		if ks == kd {
			// The destination exists (it is the source), as on every backend.
			if _, err := f.Stat(ctx, qs); err != nil {
				return err
			}
			return vfs.NewPathError("rename", qd, fmt.Errorf("%w: the destination is the source", fs.ErrExist))
		}
		return invalid("rename", qs, "cannot move a directory into itself (%s)", qd)
	}
	attrs, err := f.attributes(ctx, ks)
	folder := err == nil && isFolder(attrs)
	isFile := err == nil && !folder
	switch {
	case err == nil:
	case !f.isNotFound(err):
		return f.pathError("rename", qs, err)
	default:
		isDir, err := f.hasKeysUnder(ctx, dirPrefix(ks))
		if err == nil && !isDir {
			isDir, err = f.hasHadoopMarker(ctx, ks)
		}
		if err != nil {
			return f.pathError("rename", qs, err)
		}
		if !isDir {
			return vfs.NewPathError("rename", qs, fs.ErrNotExist)
		}
	}
	if _, err := f.Stat(ctx, qd); err == nil {
		return vfs.NewPathError("rename", qd, fmt.Errorf("%w: the destination exists", fs.ErrExist))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if isFile {
		return f.moveKey(ctx, qs, qd, ks, kd, f.headVersion(attrs))
	}
	srcPrefix, dstPrefix := dirPrefix(ks), dirPrefix(kd)
	var (
		mu      sync.Mutex
		changed []error
	)
	err = f.listPages(ctx, srcPrefix, "", func(objs []*blob.ListObject) error {
		return forEachKey(listedKeys(objs), renameCopyConcurrency, func(k string) error {
			rel := strings.TrimPrefix(k, srcPrefix)
			err := f.moveKeyAsListed(ctx, keyPath(qs, rel), keyPath(qd, rel), k, dstPrefix+rel)
			if errors.Is(err, vfs.ErrChanged) {
				mu.Lock()
				changed = append(changed, err)
				mu.Unlock()
				return nil
			}
			return err
		})
	})
	if err == nil {
		// The directory's own markers: Hadoop's, and a folder object.
		err = f.moveKeyAsListed(ctx, qs, qd, ks+HadoopFolderSuffix, kd+HadoopFolderSuffix)
	}
	if err == nil && folder {
		err = f.moveKey(ctx, qs, qd, ks, kd, f.headVersion(attrs))
	}
	if err != nil {
		if errors.As(err, new(*fs.PathError)) {
			return err // a key's move failed: its error names the key
		}
		return f.renameError(qs, qd, err)
	}
	if len(changed) > 0 {
		return vfs.NewPathError("rename", qs, fmt.Errorf("%w: %d object(s) changed while the directory was renamed and stay at the source with their new bytes (the rest moved): %w",
			vfs.ErrChanged, len(changed), errors.Join(changed...)))
	}
	return nil
}

// listedKeys returns the keys of objs.
func listedKeys(objs []*blob.ListObject) []string {
	keys := make([]string, len(objs))
	for i, o := range objs {
		keys[i] = o.Key
	}
	return keys
}

// keyPath returns the path that names the key "root/rel" in messages: root
// joined with rel's names, or root itself for the marker "root/" and for a
// key no path names ("root/./x"; the messages quote the key). Deletes go by
// key, never by this path.
func keyPath(root vfs.Path, rel string) vfs.Path {
	if rel == "" || !nameable(rel) {
		return root
	}
	return root.Join(strings.Split(strings.TrimSuffix(rel, "/"), "/")...)
}

// moveKeyAsListed is moveKey of a key found by a listing: it HEADs ks for
// its version first. A key gone since the listing is nothing to move.
func (f *FileSystem) moveKeyAsListed(ctx context.Context, qs, qd vfs.Path, ks, kd string) error {
	attrs, err := f.attributes(ctx, ks)
	switch {
	case f.isNotFound(err):
		return nil
	case err != nil:
		return err
	}
	return f.moveKey(ctx, qs, qd, ks, kd, f.headVersion(attrs))
}

// moveKey copies the object ks, at version v, to the new object kd, then
// deletes ks only if it is still at v. A source that is not at v (before
// or after the copy) stays, and the error wraps vfs.ErrChanged.
func (f *FileSystem) moveKey(ctx context.Context, qs, qd vfs.Path, ks, kd string, v version) error {
	if err := f.copyNewAt(ctx, kd, ks, v); err != nil {
		if errors.Is(err, vfs.ErrChanged) {
			return vfs.NewPathError("rename", qs, fmt.Errorf("%w: the object %q changed before it was copied (it was %s); it stays with its new bytes and nothing was copied to %s",
				vfs.ErrChanged, ks, v, qd.Redacted()))
		}
		return f.renameError(qs, qd, err)
	}
	err := f.deleteAt(ctx, qs, ks, v)
	if errors.Is(err, vfs.ErrChanged) && !errors.Is(err, fs.ErrNotExist) {
		return vfs.NewPathError("rename", qs, fmt.Errorf("%w: the object %q changed after it was copied; it stays with its new bytes, and %s holds the version that was copied (%s): %w",
			vfs.ErrChanged, ks, qd.Redacted(), v, err))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil // deleted meanwhile by another client: dst holds the copy
	}
	return err
}

// renameError reports a failed rename: a destination key that appeared
// meanwhile as fs.ErrExist naming dst.
func (f *FileSystem) renameError(qs, qd vfs.Path, err error) error {
	if f.isPreconditionFailed(err) {
		return vfs.NewPathError("rename", qd, fmt.Errorf("%w: the destination appeared during the rename: %w", fs.ErrExist, err))
	}
	return f.pathError("rename", qs, err)
}

// CopyFile copies the object src to dst server-side (S3 CopyObject: the bytes do
// not pass through this process; objects up to 5 GiB on S3) and returns its size.
// It HEADs src for its size. With NoOverwrite the copy is conditional
// (If-None-Match: *, as in Rename), atomic against concurrent writers. A missing src fails with
// fs.ErrNotExist, a directory src with vfs.ErrIsDir, an existing dst under
// NoOverwrite with fs.ErrExist.
func (f *FileSystem) CopyFile(ctx context.Context, dst, src vfs.Path, mode vfs.WriteMode) (int64, error) {
	qs, ks, err := f.qualifiedKey("copy", src)
	if err != nil {
		return 0, err
	}
	qd, kd, err := f.qualifiedNewKey("copy", dst)
	if err != nil {
		return 0, err
	}
	if ks == "" {
		return 0, vfs.NewPathError("copy", qs, vfs.ErrIsDir)
	}
	if kd == "" {
		return 0, vfs.NewPathError("copy", qd, vfs.ErrIsDir)
	}
	st, found, err := f.statObject(ctx, qs, ks)
	if err != nil {
		return 0, f.pathError("copy", qs, err)
	}
	if !found {
		return 0, f.missing(ctx, "copy", qs, ks, fs.ErrNotExist)
	}
	existsErr := vfs.NewPathError("copy", qd, fmt.Errorf("%w: the destination exists and the write mode is NoOverwrite", fs.ErrExist))
	switch {
	case ks == kd && mode == vfs.NoOverwrite:
		return 0, existsErr
	case ks == kd:
		return st.Size, nil
	case mode == vfs.NoOverwrite:
		if err := f.copyNew(ctx, kd, ks); f.isPreconditionFailed(err) {
			return 0, existsErr
		} else if err != nil {
			return 0, f.pathError("copy", qs, err)
		}
	default:
		if err := f.copy(ctx, kd, ks, nil); err != nil {
			return 0, f.pathError("copy", qs, err)
		}
	}
	return st.Size, nil
}

package blobfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// renameCopyConcurrency is how many server-side copies a directory rename runs at
// once.
const renameCopyConcurrency = 8

// Rename moves src to dst with conditional server-side copies followed by
// deletes. Every copy is a create of a new object (S3 CopyObject with
// If-None-Match: *; on other drivers a read streamed into a conditional write),
// so between renames racing onto one destination file exactly one wins and the
// others fail with fs.ErrExist and keep their sources; a rename never replaces
// an object. It is NOT atomic for readers: they may see both src and dst while it
// runs, or, for a directory, part of the tree at either place. A failure part
// way leaves the keys copied so far at dst and the rest at src (nothing is
// lost; a key whose delete failed is at both). A file is one copy and one
// delete; a directory copies every key under "src/" to the same relative key
// under "dst/", streaming the listing page by page, and deletes each page's
// sources after their copies succeed, so two directory renames racing onto one
// destination may both fail part way, with every key kept at its source or at
// dst. An existing dst (src itself included) fails with fs.ErrExist, a missing
// src with fs.ErrNotExist, and dst inside src with fs.ErrInvalid.
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
	st, err := f.Stat(ctx, qs)
	if err != nil {
		return f.pathError("rename", qs, err)
	}
	if _, err := f.Stat(ctx, qd); err == nil {
		return vfs.NewPathError("rename", qd, fmt.Errorf("%w: the destination exists", fs.ErrExist))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if !st.IsDir {
		if err := f.copyNew(ctx, kd, ks); err != nil {
			return f.renameError(qs, qd, err)
		}
		return f.pathError("rename", qs, f.deleteKeys(ctx, []string{ks}))
	}
	srcPrefix, dstPrefix := dirPrefix(ks), dirPrefix(kd)
	err = f.listPages(ctx, srcPrefix, "", func(objs []*blob.ListObject) error {
		keys := make([]string, len(objs))
		for i, o := range objs {
			keys[i] = o.Key
		}
		if err := f.copyKeys(ctx, keys, func(k string) string { return dstPrefix + strings.TrimPrefix(k, srcPrefix) }); err != nil {
			return err
		}
		return f.deleteKeys(ctx, keys)
	})
	return f.renameError(qs, qd, err)
}

// renameError reports a failed rename: a destination key that appeared
// meanwhile as fs.ErrExist naming dst.
func (f *FileSystem) renameError(qs, qd vfs.Path, err error) error {
	if f.isPreconditionFailed(err) {
		return vfs.NewPathError("rename", qd, fmt.Errorf("%w: the destination appeared during the rename: %w", fs.ErrExist, err))
	}
	return f.pathError("rename", qs, err)
}

// copyKeys copies every key k to dstOf(k) as a new object (copyNew), a few at a
// time.
func (f *FileSystem) copyKeys(ctx context.Context, keys []string, dstOf func(string) string) error {
	return forEachKey(keys, renameCopyConcurrency, func(k string) error {
		return f.copyNew(ctx, dstOf(k), k)
	})
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

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

// Rename moves src to dst with server-side copies followed by deletes. It is NOT
// atomic: readers may see both or, for a directory, part of the tree at either
// place while it runs, and a failure part way leaves the keys copied so far at
// dst and the rest at src (nothing is lost). A file is one copy and one delete; a
// directory copies every key under "src/" to the same relative key under
// "dst/", streaming the listing page by page, and deletes each page's sources
// after their copies succeed. An existing dst (src itself included) fails with
// fs.ErrExist, a missing src with fs.ErrNotExist, and dst inside src with
// fs.ErrInvalid.
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
		if err := f.copy(ctx, kd, ks); err != nil {
			return f.pathError("rename", qs, err)
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
	return f.pathError("rename", qs, err)
}

// copyKeys copies every key k to dstOf(k) server-side, a few at a time.
func (f *FileSystem) copyKeys(ctx context.Context, keys []string, dstOf func(string) string) error {
	return forEachKey(keys, renameCopyConcurrency, func(k string) error {
		return f.copy(ctx, dstOf(k), k)
	})
}

// CopyFile copies the object src to dst server-side (S3 CopyObject: the bytes do
// not pass through this process; objects up to 5 GiB on S3) and returns its size.
// It HEADs src for its size, and with NoOverwrite HEADs dst first: that check is
// not atomic against a concurrent writer. A missing src fails with
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
	if mode == vfs.NoOverwrite {
		if _, exists, err := f.statObject(ctx, qd, kd); err != nil {
			return 0, f.pathError("copy", qd, err)
		} else if exists {
			return 0, vfs.NewPathError("copy", qd, fmt.Errorf("%w: the destination exists and the write mode is NoOverwrite", fs.ErrExist))
		}
	}
	if ks == kd {
		return st.Size, nil
	}
	if err := f.copy(ctx, kd, ks); err != nil {
		return 0, f.pathError("copy", qs, err)
	}
	return st.Size, nil
}

package vfs

import (
	"context"
	"errors"
	"io/fs"
)

// WalkFunc is called by Walk for every file and directory. err is non-nil when the
// status of root or the listing of a directory failed; for a failed listing the
// function is called a second time for that directory. Returning fs.SkipDir skips a
// directory (or the rest of a directory, for a file); fs.SkipAll stops the walk
// without error; any other error stops it with that error.
type WalkFunc func(status FileStatus, err error) error

// Walk visits root and everything below it in lexical order, depth first, like
// io/fs.WalkDir. It checks ctx before every entry and returns ctx.Err() once it
// is done.
func Walk(ctx context.Context, fsys FileSystem, root Path, fn WalkFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st, err := fsys.Stat(ctx, root)
	if err != nil {
		err = fn(FileStatus{Path: root}, err)
	} else {
		err = walk(ctx, fsys, st, fn)
	}
	if err == fs.SkipDir || err == fs.SkipAll {
		return nil
	}
	return err
}

func walk(ctx context.Context, fsys FileSystem, st FileStatus, fn WalkFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := fn(st, nil); err != nil || !st.IsDir {
		if err == fs.SkipDir && st.IsDir {
			err = nil
		}
		return err
	}
	entries, err := fsys.List(ctx, st.Path)
	if err != nil {
		if err = fn(st, err); err != nil {
			if err == fs.SkipDir {
				err = nil
			}
			return err
		}
	}
	for _, e := range entries {
		if err := walk(ctx, fsys, e, fn); err != nil {
			if errors.Is(err, fs.SkipDir) {
				break
			}
			return err
		}
	}
	return nil
}

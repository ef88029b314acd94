package vfs

import (
	"context"
	"fmt"
	"io/fs"
	"time"
)

// TempCleaner is implemented by file systems whose writes go through hidden
// temporary files that a writer killed mid-write leaves behind (the aferofs
// engine under file:// writes next to the target under a name made of
// ".vfskit-tmp-", a random write id and a check of that id, so that no user's
// file is taken for one by accident).
type TempCleaner interface {
	// CleanTemp finds the temporary files of this file system's own writers in
	// dir and below it that were last modified before cutoff, removes them unless
	// dryRun, and returns their paths. It removes nothing else, never follows
	// symbolic links, and leaves younger temporary files (writes in flight)
	// alone. The in-progress files of a RecoverableWriter are not temporary
	// files: a token may need them at any age, so CleanTemp never removes them.
	CleanTemp(ctx context.Context, dir Path, cutoff time.Time, dryRun bool) ([]Path, error)
}

// CleanTemp removes the temporary files that writers killed mid-write left in
// dir and below it, when they were last modified more than olderThan ago, and
// returns their paths. A file system that does not implement TempCleaner leaves
// no such files (object stores publish at once, memory:// writes no temporary
// file) and gets nil, nil. olderThan must not be negative (fs.ErrInvalid).
func CleanTemp(ctx context.Context, fsys FileSystem, dir Path, olderThan time.Duration) ([]Path, error) {
	return cleanTemp(ctx, fsys, dir, olderThan, false)
}

// FindTemp is CleanTemp without removing: it returns the paths CleanTemp would
// remove now.
func FindTemp(ctx context.Context, fsys FileSystem, dir Path, olderThan time.Duration) ([]Path, error) {
	return cleanTemp(ctx, fsys, dir, olderThan, true)
}

func cleanTemp(ctx context.Context, fsys FileSystem, dir Path, olderThan time.Duration, dryRun bool) ([]Path, error) {
	if olderThan < 0 {
		return nil, NewPathError("clean temp", dir, fmt.Errorf(
			"%w: age %s is negative (expected a duration such as 1h)", fs.ErrInvalid, olderThan))
	}
	return CleanTempBefore(ctx, fsys, dir, time.Now().Add(-olderThan), dryRun)
}

// CleanTempBefore is fsys's CleanTemp (TempCleaner) with an absolute cutoff:
// it finds the temporary files in dir and below it last modified before
// cutoff, removes them unless dryRun, and returns their paths. A file system
// without TempCleaner leaves no temporary files: it gets the Stat of dir, and
// its error or nil, nil (a missing dir fails with fs.ErrNotExist).
func CleanTempBefore(ctx context.Context, fsys FileSystem, dir Path, cutoff time.Time, dryRun bool) ([]Path, error) {
	if c, ok := fsys.(TempCleaner); ok {
		return c.CleanTemp(ctx, dir, cutoff, dryRun)
	}
	if _, err := fsys.Stat(ctx, dir); err != nil {
		return nil, err
	}
	return nil, nil
}

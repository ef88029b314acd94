package vfs

import (
	"context"
	"errors"
)

// DirSyncer is implemented by file systems where a new file's name becomes
// durable only when its directory is synced (file://: an fsync of the
// directory). Create's Close does that for every file, so that a file is durable
// once Close returns; a program writing many files that only need to be durable
// together (the state files of one checkpoint) can instead create them with
// CreateUnsynced and sync their directory once, as a program writing them with
// os calls would.
type DirSyncer interface {
	// CreateUnsynced is Create, with every guarantee of Create but one: Close
	// makes the contents durable and publishes the file atomically, but does
	// not sync its directory, so after a crash of the machine (not merely of
	// the process) the file may be missing until a SyncDir of its directory
	// has returned nil.
	CreateUnsynced(ctx context.Context, p Path, mode WriteMode) (OutputStream, error)
	// SyncDir makes the names in the directory dir durable (the files
	// published there, created, renamed or deleted). A missing dir fails with
	// fs.ErrNotExist; a file system that keeps nothing across crashes returns
	// nil for any existing directory. A layer (layer.Base) over a file system
	// without DirSyncer, whose names are durable when Close returns (object
	// stores), has nothing to sync and returns nil for any dir, sending no
	// request.
	SyncDir(ctx context.Context, dir Path) error
}

// CreateUnsynced creates p with fsys's CreateUnsynced where fsys is a
// DirSyncer, and with fsys.Create otherwise: a file system without DirSyncer
// makes a name durable at every Close, so its Create already is what
// CreateUnsynced followed by SyncDir would be.
func CreateUnsynced(ctx context.Context, fsys FileSystem, p Path, mode WriteMode) (OutputStream, error) {
	if ds, ok := fsys.(DirSyncer); ok {
		return ds.CreateUnsynced(ctx, p, mode)
	}
	return fsys.Create(ctx, p, mode)
}

// SyncDir makes the names in dir durable with fsys's SyncDir where fsys is a
// DirSyncer. On a file system without one, every file was durable when its
// Close returned, so there is nothing to sync: SyncDir returns nil at once,
// without a request (over s3:// it pays no HEAD and no LIST per directory).
func SyncDir(ctx context.Context, fsys FileSystem, dir Path) error {
	if ds, ok := fsys.(DirSyncer); ok {
		return ds.SyncDir(ctx, dir)
	}
	return nil
}

// syncDirs makes the names of the files a tree copy published durable: one
// SyncDir of each directory it published a file in (copyStream creates them
// with CreateUnsynced). It syncs them all, also after a failure or a cancel
// (the files a kept copy holds must last too), and returns every error.
func (c *treeCopier) syncDirs(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	var errs []error
	for d := range c.unsynced {
		if err := SyncDir(ctx, c.dst, d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

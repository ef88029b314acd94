package vfs

import "context"

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

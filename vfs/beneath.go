package vfs

import "context"

// OpenBeneathFS is implemented by file systems with symbolic links that can
// open a file below a directory without following any link on the way
// (file:// on Linux: openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS, or
// openat with O_NOFOLLOW one directory at a time). CopyTree and MoveTree use
// it, unless they follow links, so that a directory swapped for a link after
// they listed it is detected, not read through.
type OpenBeneathFS interface {
	FileSystem
	// OpenBeneath opens dir/rel for reading; rel is a '/'-separated path
	// relative to dir, of names as a listing gave them. dir itself is
	// resolved as Open resolves it; no symbolic link in rel is followed: a
	// link there fails with an *fs.PathError wrapping ErrChanged, and so
	// does a file that is not a regular file (a FIFO, a device), which is
	// not opened for reading. An error wrapping errors.ErrUnsupported means
	// the file system cannot open this way; the caller then decides.
	OpenBeneath(ctx context.Context, dir Path, rel string) (InputStream, error)
}

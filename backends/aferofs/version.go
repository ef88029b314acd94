package aferofs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/vfs"
)

var (
	_ vfs.VersionStater   = (*inputStream)(nil)
	_ vfs.DeleteVersionFS = (*FileSystem)(nil)
)

// Version returns the version of the file the stream reads, from the open
// file itself (an fstat on disk): its size, modification time and, on disk,
// its device and inode as the ID.
func (s *inputStream) Version() (vfs.Version, error) {
	if s.closed {
		return vfs.Version{}, vfs.NewPathError("stat", s.path, fs.ErrClosed)
	}
	fi, err := s.file.Stat()
	if err != nil {
		return vfs.Version{}, pathError("stat", s.path, err)
	}
	return versionOf(fi), nil
}

// versionOf is the version fi describes.
func versionOf(fi os.FileInfo) vfs.Version {
	return vfs.Version{Size: fi.Size(), ModTime: fi.ModTime(), ID: fileID(fi).String()}
}

// DeleteVersion deletes the file at p only if it is still at version v (see
// vfs.DeleteVersionFS): a file at another version, a directory or a symbolic
// link is left in place and the error wraps vfs.ErrChanged.
//
// Under this FileSystem's lock, which every write through it takes to
// publish, the check and the removal are one step for writers of this
// process. On disk (afero.OsFs), where other processes write too, the file is
// first renamed to a private temporary name in its directory, checked there
// (nobody else can reach it by that name) and then removed — or renamed back
// when it is not the version v. Meanwhile, for an instant, p does not exist;
// if another file was created at p in that instant, the one renamed away is
// kept under its temporary name, which the error names. A process that holds
// the file open and writes to it can still write after the check: no rename
// can stop that.
func (f *FileSystem) DeleteVersion(ctx context.Context, p vfs.Path, v vfs.Version) error {
	q, err := f.begin(ctx, "delete", p)
	if err != nil {
		return err
	}
	n := name(q)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.checkVersionLocked(q, n, v); err != nil {
		return err
	}
	if _, disk := f.afs.(*afero.OsFs); !disk {
		if err := f.afs.Remove(n); err != nil {
			return pathError("delete", q, err)
		}
		return nil
	}
	tmp := tempName(n)
	if err := f.afs.Rename(n, tmp); err != nil {
		if errors.Is(notExist(err), fs.ErrNotExist) {
			return vfs.ErrVersionGone("delete", q, v)
		}
		return pathError("delete", q, err)
	}
	if err := f.checkVersionLocked(q, tmp, v); err != nil {
		if rerr := f.renameNoReplaceLocked(tmp, n); rerr != nil {
			return vfs.NewPathError("delete", q, fmt.Errorf("%w; and it could not be put back (%v): it is kept as %s", err, stripPath(rerr), tmp))
		}
		return err
	}
	if err := f.afs.Remove(tmp); err != nil {
		return pathError("delete", q, err)
	}
	if err := f.syncDir(filepath.Dir(n)); err != nil {
		return pathError("delete", q, err)
	}
	return nil
}

// checkVersionLocked returns nil when the afero name n holds a regular file
// at version v, and the error of a mismatch otherwise (for p).
func (f *FileSystem) checkVersionLocked(p vfs.Path, n string, v vfs.Version) error {
	fi, err := f.lstat(n)
	switch {
	case errors.Is(notExist(err), fs.ErrNotExist):
		return vfs.ErrVersionGone("delete", p, v)
	case err != nil:
		return pathError("delete", p, err)
	case fi.IsDir():
		return vfs.NewPathError("delete", p, fmt.Errorf("%w: a directory is there now, not the file (%s) that was read", vfs.ErrChanged, v))
	case fi.Mode()&fs.ModeSymlink != 0:
		return vfs.NewPathError("delete", p, fmt.Errorf("%w: a symbolic link is there now, not the file (%s) that was read", vfs.ErrChanged, v))
	}
	if now := versionOf(fi); !v.Matches(now) {
		return vfs.ErrVersionMismatch("delete", p, v, now)
	}
	return nil
}

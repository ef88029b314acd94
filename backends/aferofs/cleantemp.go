package aferofs

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/vfskit/vfskit/vfs"
)

var _ vfs.TempCleaner = (*FileSystem)(nil)

// CleanTemp removes the temporary files that writers of this engine left in dir
// and below it (a writer killed mid-write, or a directory renamed during a
// write) and that were last modified before cutoff; with dryRun it only finds
// them. It returns their paths in walk order. Only regular files named exactly
// as the engine names them (".vfskit-tmp-", a write id and its check: see
// the package documentation) are removed; any other name stays, however it
// starts;
// symbolic links are neither followed nor removed. The in-progress files of
// recoverable streams (InProgressPrefix) are never removed, however old: a
// token may still need them. Each file is checked again
// just before it is removed, so one written meanwhile stays.
func (f *FileSystem) CleanTemp(ctx context.Context, dir vfs.Path, cutoff time.Time, dryRun bool) ([]vfs.Path, error) {
	q, err := f.begin(ctx, "clean temp", dir)
	if err != nil {
		return nil, err
	}
	fi, err := f.lstat(name(q))
	if err != nil {
		return nil, vfs.NewPathError("clean temp", q, notExist(err))
	}
	if !fi.IsDir() {
		return nil, vfs.NewPathError("clean temp", q, errorf(vfs.ErrNotDir, "not a directory"))
	}
	var found []vfs.Path
	err = f.cleanTemp(ctx, q, cutoff, dryRun, &found)
	return found, err
}

func (f *FileSystem) cleanTemp(ctx context.Context, dir vfs.Path, cutoff time.Time, dryRun bool, found *[]vfs.Path) error {
	if err := ctx.Err(); err != nil {
		return vfs.NewPathError("clean temp", dir, err)
	}
	n := name(dir)
	d, err := f.afs.Open(n)
	if err != nil {
		return pathError("clean temp", dir, err)
	}
	infos, err := d.Readdir(-1) // Lstat information on an OS file system
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return pathError("clean temp", dir, err)
	}
	for _, info := range infos {
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
		case info.IsDir():
			if err := f.cleanTemp(ctx, dir.Join(info.Name()), cutoff, dryRun, found); err != nil {
				return err
			}
		case isOwnTemp(info) && info.ModTime().Before(cutoff):
			if removed, err := f.removeStale(filepath.Join(n, info.Name()), cutoff, dryRun); err != nil {
				return pathError("clean temp", dir.Join(info.Name()), err)
			} else if removed {
				*found = append(*found, dir.Join(info.Name()))
			}
		}
	}
	return nil
}

// removeStale removes the temporary file n if it is still one of ours and older
// than cutoff; it reports whether it did (or would, with dryRun).
func (f *FileSystem) removeStale(n string, cutoff time.Time, dryRun bool) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fi, err := f.lstat(n)
	if err != nil || !isOwnTemp(fi) || !fi.ModTime().Before(cutoff) {
		return false, nil // gone, replaced or written meanwhile
	}
	if dryRun {
		return true, nil
	}
	if err := f.afs.Remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, nil
}

// isOwnTemp reports whether fi is a regular file named as tempName names them.
func isOwnTemp(fi fs.FileInfo) bool { return fi.Mode().IsRegular() && isTempName(fi.Name()) }

package aferofs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/vfs"
)

// Stat returns the status of a file or directory. A missing path (or one below
// a file) fails with fs.ErrNotExist.
func (f *FileSystem) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	q, err := f.begin(ctx, "stat", p)
	if err != nil {
		return vfs.FileStatus{}, err
	}
	// The result is built in place (a FileStatus is 104 bytes, and copying a
	// just-built one once more is a measurable part of a Stat).
	if f.statuser != nil {
		size, modTime, dir, err := f.statuser.Status(name(q))
		if err != nil {
			return vfs.FileStatus{}, vfs.NewPathError("stat", q, notExist(err))
		}
		return vfs.FileStatus{Path: q, Size: size, ModTime: modTime, IsDir: dir}, nil
	}
	fi, err := f.afs.Stat(name(q))
	if err != nil {
		return vfs.FileStatus{}, vfs.NewPathError("stat", q, notExist(err))
	}
	return status(q, fi), nil
}

// Statuser is an optional interface of an afero.Fs that reports the status of
// a name without building an os.FileInfo, which would cost it an allocation
// (memfs's tree implements it). The engine's Stat uses it when present, as
// io/fs helpers use StatFS.
type Statuser interface {
	// Status returns what Stat's os.FileInfo would report: the size (0 for a
	// directory), the modification time and whether name is a directory. It
	// fails as Stat does (an error that errors.Is fs.ErrNotExist for a missing
	// name or one below a file).
	Status(name string) (size int64, modTime time.Time, dir bool, err error)
}

// List returns the entries of a directory sorted by name, without in-flight
// temporary files and recoverable streams' in-progress files
// (IsInProgressName); a file lists itself. A symbolic link is listed with its
// target's status and FileStatus.Symlink set. A missing path fails with
// fs.ErrNotExist.
func (f *FileSystem) List(ctx context.Context, dir vfs.Path) ([]vfs.FileStatus, error) {
	q, err := f.begin(ctx, "list", dir)
	if err != nil {
		return nil, err
	}
	n := name(q)
	fi, err := f.afs.Stat(n)
	if err != nil {
		return nil, vfs.NewPathError("list", q, notExist(err))
	}
	if !fi.IsDir() {
		return []vfs.FileStatus{status(q, fi)}, nil
	}
	infos, err := f.readDir(n)
	if err != nil {
		return nil, pathError("list", q, err)
	}
	out := make([]vfs.FileStatus, 0, len(infos))
	for _, info := range infos {
		if IsInProgressName(info.Name()) {
			continue
		}
		link := info.Mode()&fs.ModeSymlink != 0
		if link {
			if target, err := f.afs.Stat(filepath.Join(n, info.Name())); err == nil {
				info = target
			}
		}
		st := status(q.Join(info.Name()), info)
		st.Symlink = link
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path.Name() < out[j].Path.Name() })
	return out, nil
}

// Mkdirs creates p and its missing parents. An existing directory is fine; a
// file at or above p fails with vfs.ErrNotDir.
func (f *FileSystem) Mkdirs(ctx context.Context, p vfs.Path) error {
	q, err := f.begin(ctx, "mkdirs", p)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.mkdirsLocked(q); err != nil {
		return vfs.NewPathError("mkdirs", q, err)
	}
	return nil
}

// Delete removes a file, or a directory with everything below it when
// recursive. A missing path returns nil. A directory with entries fails with
// vfs.ErrDirNotEmpty unless recursive, and nothing is deleted. The root
// directory is never removed: deleting it when it has entries fails
// (vfs.ErrDirNotEmpty, or fs.ErrInvalid when recursive).
func (f *FileSystem) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	q, err := f.begin(ctx, "delete", p)
	if err != nil {
		return err
	}
	n := name(q)
	f.mu.Lock()
	defer f.mu.Unlock()
	fi, err := f.lstat(n)
	if err != nil {
		if errors.Is(notExist(err), fs.ErrNotExist) {
			return nil
		}
		return pathError("delete", q, err)
	}
	if !fi.IsDir() {
		if err := f.afs.Remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return pathError("delete", q, err)
		}
		return nil
	}
	entries, err := f.readDir(n)
	if err != nil {
		return pathError("delete", q, err)
	}
	switch {
	case len(entries) > 0 && !recursive:
		return vfs.NewPathError("delete", q, errorf(vfs.ErrDirNotEmpty,
			"directory has %d entries (%s, ...); pass recursive to delete them", len(entries), entries[0].Name()))
	case isRoot(q) && len(entries) == 0:
		return nil
	case isRoot(q):
		return vfs.NewPathError("delete", q, errorf(fs.ErrInvalid, "refusing to delete the root directory recursively"))
	}
	if err := f.afs.RemoveAll(n); err != nil {
		return pathError("delete", q, err)
	}
	return nil
}

// Rename moves a file or a whole directory tree from src to dst, creating the
// missing parents of dst. A missing src fails with fs.ErrNotExist, an existing
// dst (src itself included) with fs.ErrExist, a directory moved into itself or
// the root with fs.ErrInvalid, and a file in the way of dst's parents with
// vfs.ErrNotDir.
func (f *FileSystem) Rename(ctx context.Context, src, dst vfs.Path) error {
	qs, err := f.begin(ctx, "rename", src)
	if err != nil {
		return err
	}
	qd, err := f.begin(ctx, "rename", dst)
	if err != nil {
		return err
	}
	if isRoot(qs) {
		return vfs.NewPathError("rename", qs, errorf(fs.ErrInvalid, "cannot rename the root directory"))
	}
	ns, nd := name(qs), name(qd)
	f.mu.Lock()
	defer f.mu.Unlock()
	fi, err := f.lstat(ns)
	if err != nil {
		return vfs.NewPathError("rename", qs, notExist(err))
	}
	if fi.IsDir() && strings.HasPrefix(qd.Path(), strings.TrimSuffix(qs.Path(), "/")+"/") {
		return vfs.NewPathError("rename", qd, errorf(fs.ErrInvalid, "cannot move directory %s into itself", qs))
	}
	if _, err := f.lstat(nd); err == nil {
		return vfs.NewPathError("rename", qd, errorf(fs.ErrExist, "destination exists"))
	} else if !errors.Is(notExist(err), fs.ErrNotExist) {
		return pathError("rename", qd, err)
	}
	if err := f.mkdirsLocked(qd.Parent()); err != nil {
		return vfs.NewPathError("rename", qd, err)
	}
	if err := f.renameNoReplaceLocked(ns, nd); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return vfs.NewPathError("rename", qd, errorf(fs.ErrExist, "destination exists"))
		}
		return pathError("rename", qs, err)
	}
	if err := f.syncDir(filepath.Dir(nd)); err != nil {
		return pathError("rename", qd, err)
	}
	if err := f.syncDir(filepath.Dir(ns)); err != nil {
		return pathError("rename", qs, err)
	}
	return nil
}

// begin checks ctx and qualifies p for op. A path that is ready (the common
// case) is returned at once, without being copied through further calls (a
// Path is 48 bytes, and each copy of one just made costs about as much as the
// comparisons that check it).
func (f *FileSystem) begin(ctx context.Context, op string, p vfs.Path) (vfs.Path, error) {
	if f.ready(&p) && ctx.Err() == nil {
		return p, nil
	}
	return f.beginSlow(ctx, op, p)
}

// beginSlow is begin for a path that is not ready or an ended ctx.
func (f *FileSystem) beginSlow(ctx context.Context, op string, p vfs.Path) (vfs.Path, error) {
	if err := ctx.Err(); err != nil {
		return vfs.Path{}, &fs.PathError{Op: op, Path: p.Redacted(), Err: err}
	}
	return f.qualify(op, p)
}

// mkdirsLocked creates the directory p and its parents. It returns an error
// without path (the caller wraps it), naming the file in the way if there is one.
func (f *FileSystem) mkdirsLocked(p vfs.Path) error {
	n := name(p)
	fi, err := f.afs.Stat(n)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return errorf(vfs.ErrNotDir, "%s is a file", p)
	case !errors.Is(notExist(err), fs.ErrNotExist):
		return classify(stripPath(err))
	case isRoot(p):
		// A missing root (a BasePathFs over a directory not made yet) is made.
		if err := f.afs.MkdirAll(n, 0o777); err != nil {
			return classify(stripPath(err))
		}
		return nil
	}
	if err := f.mkdirsLocked(p.Parent()); err != nil {
		return err
	}
	if err := f.afs.Mkdir(n, 0o777); err != nil {
		// Another process may have made it (or a file) meanwhile.
		if fi, serr := f.afs.Stat(n); serr == nil {
			if fi.IsDir() {
				return nil
			}
			return errorf(vfs.ErrNotDir, "%s is a file", p)
		}
		return classify(stripPath(err))
	}
	// A new directory's entry in its parent must be durable too.
	return classify(stripPath(f.syncDir(filepath.Dir(n))))
}

// renameNoReplaceLocked renames oldname to newname unless newname exists
// (fs.ErrExist), atomically when Options.RenameNoReplace allows.
func (f *FileSystem) renameNoReplaceLocked(oldname, newname string) error {
	if f.opts.RenameNoReplace != nil {
		err := f.opts.RenameNoReplace(oldname, newname)
		if !errors.Is(err, errors.ErrUnsupported) {
			return err
		}
	}
	if _, err := f.lstat(newname); err == nil {
		return fs.ErrExist
	}
	return f.afs.Rename(oldname, newname)
}

// lstat is Lstat where the afero.Fs has it, so a symbolic link is handled as
// itself, and Stat elsewhere.
func (f *FileSystem) lstat(n string) (os.FileInfo, error) {
	if l, ok := f.afs.(afero.Lstater); ok {
		fi, _, err := l.LstatIfPossible(n)
		return fi, err
	}
	return f.afs.Stat(n)
}

// readDir returns the entries of the directory n, without temporary files.
func (f *FileSystem) readDir(n string) ([]os.FileInfo, error) {
	d, err := f.afs.Open(n)
	if err != nil {
		return nil, err
	}
	infos, err := d.Readdir(-1)
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	visible := infos[:0]
	for _, info := range infos {
		if !isTempName(info.Name()) {
			visible = append(visible, info)
		}
	}
	return visible, nil
}

// syncDir fsyncs the directory n when Options.Durable is set.
func (f *FileSystem) syncDir(n string) error {
	if !f.opts.Durable {
		return nil
	}
	d, err := f.afs.Open(n)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// status converts an os.FileInfo of the qualified path p.
func status(p vfs.Path, fi os.FileInfo) vfs.FileStatus {
	st := vfs.FileStatus{Path: p, ModTime: fi.ModTime(), IsDir: fi.IsDir(), FileID: fileID(fi)}
	if !st.IsDir {
		st.Size = fi.Size()
		st.Special = fi.Mode().Type() &^ fs.ModeSymlink
	}
	return st
}

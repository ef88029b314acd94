package vfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
)

// WalkFunc is called by Walk for every file and directory. err is non-nil when the
// status of root or the listing of a directory failed, or (following links) a
// linked directory leads back to a directory being walked (ErrLinkLoop); for
// a failed listing or a loop the function is called a second time for that
// directory, whose entries are then not visited. Returning fs.SkipDir skips a
// directory (or the rest of a directory, for a file); fs.SkipAll stops the walk
// without error; any other error stops it with that error.
type WalkFunc func(status FileStatus, err error) error

// ErrLinkLoop is reported (wrapped in an *fs.PathError) for a symbolic link to
// a directory that contains it, when a walk follows links.
var ErrLinkLoop = errors.New("symbolic link loop")

// WalkOptions tunes WalkWith. The zero value is Walk's behaviour.
type WalkOptions struct {
	// FollowLinks makes the walk descend into directories reached through
	// symbolic links (FileStatus.Symlink). A link back to a directory being
	// walked is reported with ErrLinkLoop instead of followed; that needs the
	// file system to implement RealPathFS, and without it linked directories
	// are not followed.
	FollowLinks bool
	// Entries, when not nil, is the listing of root that the caller already
	// has (List's answer): the walk then takes root for a directory holding
	// them, and neither Stats nor lists it. A file root lists itself.
	Entries []FileStatus
}

// RealPathFS is implemented by file systems with symbolic links (file://).
type RealPathFS interface {
	FileSystem
	// RealPath returns p, qualified, with every symbolic link in it resolved.
	RealPath(ctx context.Context, p Path) (Path, error)
}

// RealPath returns p, qualified by fsys, with every symbolic link in it
// resolved: fsys's RealPath where fsys is a RealPathFS; on a file system
// without symbolic links it is p qualified (Qualify), sending no request.
func RealPath(ctx context.Context, fsys FileSystem, p Path) (Path, error) {
	if rp, ok := fsys.(RealPathFS); ok {
		return rp.RealPath(ctx, p)
	}
	return Qualify("realpath", fsys, p)
}

// IsSymlink reports whether the last segment of p is a symbolic link (its
// parents may be links either way), on a file system that has links
// (RealPathFS); elsewhere, for the root and for a missing p it is false.
func IsSymlink(ctx context.Context, fsys FileSystem, p Path) (bool, error) {
	rp, ok := fsys.(RealPathFS)
	if !ok || p.Parent().IsZero() {
		return false, nil
	}
	real, err := rp.RealPath(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	dir, err := rp.RealPath(ctx, p.Parent())
	if err != nil {
		return false, err
	}
	return real != dir.Join(p.Name()), nil
}

// Walk visits root and everything below it in lexical order, depth first, like
// io/fs.WalkDir. Like filepath.WalkDir it does not descend into directories
// that entries link to (FileStatus.Symlink): they are visited, not entered; root
// itself is always entered. It checks ctx before every entry and returns
// ctx.Err() once it is done.
func Walk(ctx context.Context, fsys FileSystem, root Path, fn WalkFunc) error {
	return WalkWith(ctx, fsys, root, WalkOptions{}, fn)
}

// WalkWith is Walk with options (see WalkOptions).
func WalkWith(ctx context.Context, fsys FileSystem, root Path, opts WalkOptions, fn WalkFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w := walker{fsys: fsys, fn: fn, first: opts.Entries}
	if rp, ok := fsys.(RealPathFS); ok && opts.FollowLinks {
		w.real, w.active = rp, map[Path]bool{}
	}
	st, err := FileStatus{Path: root, IsDir: true}, error(nil)
	if opts.Entries == nil {
		st, err = fsys.Stat(ctx, root)
	}
	if err != nil {
		err = fn(FileStatus{Path: root}, err)
	} else {
		st.Symlink = false // root is entered whatever it is
		err = w.walk(ctx, st, Path{})
	}
	if err == fs.SkipDir || err == fs.SkipAll {
		return nil
	}
	return err
}

// walker is one walk. With real set (following links), active holds the real
// paths of the directories being walked, so that a link back to one is a loop.
type walker struct {
	fsys   FileSystem
	fn     WalkFunc
	real   RealPathFS
	active map[Path]bool
	// first is WalkOptions.Entries: root's listing, used once.
	first []FileStatus
}

// walk visits st and, for a directory, its entries. parentReal is the real path
// of st's directory when following links (zero for root).
func (w *walker) walk(ctx context.Context, st FileStatus, parentReal Path) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := w.fn(st, nil); err != nil || !st.IsDir || st.Symlink && w.real == nil {
		if err == fs.SkipDir && st.IsDir {
			err = nil
		}
		return err
	}
	var real Path
	if w.real != nil {
		var err error
		if real, err = w.realPath(ctx, st, parentReal); err != nil {
			return w.skip(st, err)
		}
		if w.active[real] {
			return w.skip(st, NewPathError("walk", st.Path, fmt.Errorf("%w: %s leads back to %s, which is being walked", ErrLinkLoop, st.Path, real)))
		}
		w.active[real] = true
		defer delete(w.active, real)
	}
	entries := w.first
	if entries != nil {
		w.first = nil
	} else {
		var err error
		if entries, err = w.fsys.List(ctx, st.Path); err != nil {
			return w.skip(st, err)
		}
	}
	for _, e := range entries {
		if err := w.walk(ctx, e, real); err != nil {
			if errors.Is(err, fs.SkipDir) {
				break
			}
			return err
		}
	}
	return nil
}

// realPath is the real path of the directory st: its parent's real path joined
// with its name, unless st is root or a link, which are resolved.
func (w *walker) realPath(ctx context.Context, st FileStatus, parentReal Path) (Path, error) {
	if parentReal.IsZero() || st.Symlink {
		return w.real.RealPath(ctx, st.Path)
	}
	return parentReal.Join(st.Name()), nil
}

// skip reports err for the directory st to the WalkFunc; its entries are not
// visited.
func (w *walker) skip(st FileStatus, err error) error {
	if err = w.fn(st, err); err == fs.SkipDir {
		err = nil
	}
	return err
}

package vfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// LeftFile is a source file that MoveTree did not delete, and why.
type LeftFile struct {
	// Path is the file at the source, qualified.
	Path Path
	// Reason says in a few words why it stays ("changed since it was
	// copied", "appeared during the move", ...).
	Reason string
	// Err says why it stays: it wraps ErrChanged for a file that changed
	// while it was moved (its copy at the destination is of the version that
	// was read), or for one that appeared meanwhile (never copied).
	Err error
}

// MoveResult is what MoveTree did.
type MoveResult struct {
	// CopyResult is the copy: Files were copied; of those, the ones not in
	// Left were deleted at the source.
	*CopyResult
	// Left are the source files that stay: changed or created while the move
	// ran, or that could not be deleted.
	Left []LeftFile
	// RemovedDirs are the source directories that the move left empty and
	// removed.
	RemovedDirs []Path
	// Kept are the source files that were not moved because their
	// destination existed and was kept (OverwriteSkip, OverwriteOlder; the
	// destinations are CopyResult.Skipped). They stay where they are.
	Kept []Path
}

// LeftError is MoveTree's error when files stay at the source: it lists
// them. It wraps ErrChanged.
type LeftError struct {
	Src  Path
	Left []LeftFile
	// Unnameable are keys no Path names that appeared at the source while
	// the move ran (MoveResult.Unnameable); they stay there.
	Unnameable []string
}

// Error names every file left and why.
func (e *LeftError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "vfs: move %s: %d file(s) left at the source (changed or created while the move ran; the copy holds the version that was read):", e.Src.Redacted(), len(e.Left))
	for _, l := range e.Left {
		fmt.Fprintf(&b, "\n  %s: %v", l.Path.Redacted(), l.Err)
	}
	if len(e.Unnameable) > 0 {
		fmt.Fprintf(&b, "\n  and %d key(s) that no path names, written while the move ran:", len(e.Unnameable))
		for _, k := range e.Unnameable {
			fmt.Fprintf(&b, " %q", k)
		}
	}
	return b.String()
}

// Unwrap returns ErrChanged.
func (e *LeftError) Unwrap() error { return ErrChanged }

// MoveTree moves the file or tree srcPath on src to dstPath on dst: it copies
// it as CopyTree does (with opts), then deletes at the source exactly the
// files it copied, each only if it is still the version that was read
// (DeleteVersion). A file that changed while the move ran, or that appeared
// in the source meanwhile, stays where it is; the result lists it in Left and
// the error is a *LeftError (wrapping ErrChanged). Then the source
// directories that this left empty are removed, deepest first, each with a
// non-recursive delete (a directory that holds anything stays). Nothing below
// the source is ever deleted recursively, and nothing that was not copied is
// deleted.
//
// A source that holds objects no Path names (CheckNameable: an object
// store's keys with an empty, "." or ".." segment) is refused with
// fs.ErrInvalid naming them, before anything is copied or deleted. Such keys
// written while the move of a directory runs stay at the source: the source
// is checked again once the deletes are done, and the ones found then (up to 20) are in
// MoveResult.Unnameable and the *LeftError.
//
// When the copy fails, nothing at the source is touched and the copy is
// undone (see CopyTree). For a rename within one file system, use
// FileSystem.Rename.
func MoveTree(ctx context.Context, dst FileSystem, dstPath Path, src FileSystem, srcPath Path, opts CopyOptions) (*MoveResult, error) {
	c, err := newTreeCopier(dst, dstPath, src, srcPath, opts, true)
	if err != nil {
		return nil, err
	}
	if err := CheckNameable(ctx, src, c.srcRoot); err != nil {
		return nil, err
	}
	cr, err := c.run(ctx)
	if err != nil {
		return nil, err
	}
	r := &MoveResult{CopyResult: cr}
	copied := make(map[Path]bool, len(cr.Files))
	for i, skipped := range c.skipped {
		if skipped {
			r.Kept = append(r.Kept, c.copied[i].Src)
		}
	}
	for _, f := range cr.Files {
		copied[f.Src] = true
		err := errors.New("it changed while it was read")
		if !f.Changed {
			err = DeleteVersion(ctx, src, f.Src, f.Version)
		}
		switch {
		case err == nil, errors.Is(err, fs.ErrNotExist):
		case f.Changed:
			r.Left = append(r.Left, LeftFile{Path: f.Src, Reason: "changed while it was copied", Err: NewPathError("move", f.Src, fmt.Errorf("%w: it changed while it was being read; the copy holds a version that is not the one here", ErrChanged))})
		case errors.Is(err, ErrChanged):
			r.Left = append(r.Left, LeftFile{Path: f.Src, Reason: "changed since it was copied", Err: err})
		default:
			r.Left = append(r.Left, LeftFile{Path: f.Src, Reason: "could not be deleted", Err: err})
		}
	}
	if err := r.collectAppeared(ctx, src, copied); err != nil {
		return r, err
	}
	if len(cr.SrcDirs) > 0 { // a directory; below a file moved away, such keys were there before
		odd, err := checkNameable(ctx, src, cr.Src, "move", "written while the move ran", "they stay at the source")
		if len(odd) == 0 && err != nil {
			return r, err
		}
		r.Unnameable = odd
	}
	r.removeEmptyDirs(ctx, src)
	if len(r.Left) > 0 || len(r.Unnameable) > 0 {
		return r, &LeftError{Src: cr.Src, Left: r.Left, Unnameable: r.Unnameable}
	}
	return r, nil
}

// collectAppeared lists the source again and adds to Left every file there
// that the move did not copy (created meanwhile, or a link it skipped).
func (r *MoveResult) collectAppeared(ctx context.Context, src FileSystem, copied map[Path]bool) error {
	left := make(map[Path]bool, len(r.Left)+len(r.Kept))
	for _, l := range r.Left {
		left[l.Path] = true
	}
	for _, k := range r.Kept {
		left[k] = true
	}
	err := Walk(ctx, src, r.Src, func(st FileStatus, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		case st.IsDir && !st.Symlink || left[st.Path]:
			return nil
		}
		why := "appeared during the move"
		switch {
		case copied[st.Path]:
			why = "written again after it was moved"
		case st.Symlink:
			why = "a symbolic link, not moved"
		}
		r.Left = append(r.Left, LeftFile{Path: st.Path, Reason: why, Err: NewPathError("move", st.Path, fmt.Errorf("%w: %s", ErrChanged, why))})
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// removeEmptyDirs removes the source directories of the copy that are empty
// now, deepest first, each only while it is a directory and with a
// non-recursive delete. A directory that is, or holds, a file in Left is
// kept: a directory replaced by a symbolic link meanwhile is listed there,
// and a non-recursive delete would remove the link; so is one that is a link
// now (IsSymlink).
func (r *MoveResult) removeEmptyDirs(ctx context.Context, src FileSystem) {
	dirs := append([]Path(nil), r.SrcDirs...)
	sortDeepestFirst(dirs)
	keep := make(map[Path]bool)
	for _, l := range r.Left {
		for p := l.Path; !p.IsZero() && !keep[p]; p = p.Parent() {
			keep[p] = true
		}
	}
	for _, d := range dirs {
		if keep[d] {
			continue
		}
		st, err := src.Stat(ctx, d)
		if err != nil || !st.IsDir {
			continue
		}
		if link, err := IsSymlink(ctx, src, d); link || err != nil {
			continue // swapped for a link since the listing: it stays
		}
		if err := src.Delete(ctx, d, false); err == nil {
			r.RemovedDirs = append(r.RemovedDirs, d)
		}
	}
}

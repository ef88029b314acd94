package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

// transferItem is one step of a copy: create a directory, or copy one file.
type transferItem struct {
	src, dst location
	dir      bool
	size     int64
}

// transferPlan is the list of steps that copies src to dst, and the number of
// bytes it moves.
type transferPlan struct {
	items []transferItem
	bytes int64
	// dst is where src ends up (see destination).
	dst location
}

// destination checks a transfer of src to dst and returns the status of src
// and where it ends up: dst itself, or dst/<name of src> when dst is an existing
// directory (as cp and mv do) or, for a file, when dst ends in "/" (as "aws s3
// cp" does; the directory is created). A dst that ends in "/" but is a file is
// an error. A directory source needs recursive; op ("cp", "mv") names the
// operation in errors.
func destination(ctx context.Context, op string, src, dst location, recursive bool) (vfs.FileStatus, location, error) {
	st, err := src.fsys.Stat(ctx, src.path)
	if err != nil {
		return st, dst, missing(op, src, err)
	}
	if st.IsDir && !recursive {
		return st, dst, vfs.NewPathError(op, src.path, fmt.Errorf("%w (use -r to copy a directory)", vfs.ErrIsDir))
	}
	dstSt, err := dst.fsys.Stat(ctx, dst.path)
	switch {
	case err == nil && dstSt.IsDir:
		dst = dst.join(src.path.Name())
	case err == nil && dst.dir:
		return st, dst, vfs.NewPathError(op, dst.path, fmt.Errorf("%w: the destination ends in / but is a file", vfs.ErrNotDir))
	case errors.Is(err, fs.ErrNotExist) && dst.dir && !st.IsDir:
		dst = dst.join(src.path.Name())
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return st, dst, err
	}
	if src.sameFileSystem(dst) {
		s, d := src.path.Path(), dst.path.Path()
		if s == d {
			return st, dst, vfs.NewPathError(op, dst.path, fmt.Errorf("%w: source and destination are the same", fs.ErrInvalid))
		}
		if st.IsDir && strings.HasPrefix(d, strings.TrimSuffix(s, "/")+"/") {
			return st, dst, vfs.NewPathError(op, dst.path, fmt.Errorf("%w: cannot %s directory %s into itself", fs.ErrInvalid, verb(op), src.path))
		}
	}
	return st, dst, nil
}

// verb is what op does to a directory, for messages: "copy" or "move".
func verb(op string) string {
	if op == "mv" {
		return "move"
	}
	return "copy"
}

// planTransfer works out the steps that copy src to dst (see destination).
// Symbolic links are not followed unless follow is set: src itself, when it is
// a link to a directory (named without a trailing "/"), fails the plan, as
// does a link below src for mv (which deletes the source); cp skips links
// below src with a warning. A
// followed link back into the tree fails the plan (vfs.ErrLinkLoop) before
// anything is copied.
func (a *app) planTransfer(ctx context.Context, op string, src, dst location, recursive, follow bool) (transferPlan, error) {
	st, dst, err := destination(ctx, op, src, dst, recursive)
	if err != nil {
		return transferPlan{}, err
	}
	if st.IsDir && !follow && !src.dir {
		switch link, err := isLink(ctx, src.fsys, src.path); {
		case err != nil:
			return transferPlan{}, err
		case link && op == "mv":
			return transferPlan{}, vfs.NewPathError(op, src.path, fmt.Errorf("%w: a symbolic link cannot be moved to another file system (nothing was moved)", fs.ErrInvalid))
		case link:
			return transferPlan{}, vfs.NewPathError(op, src.path, fmt.Errorf("%w: a symbolic link to a directory is not followed without -L (cp -r -L copies the directory it links to, as does naming it with a trailing /)", fs.ErrInvalid))
		}
	}
	plan := transferPlan{dst: dst}
	if !st.IsDir {
		plan.items = []transferItem{{src: src, dst: dst, size: st.Size}}
		plan.bytes = st.Size
		return plan, nil
	}
	root := src.path.Path()
	err = vfs.WalkWith(ctx, src.fsys, src.path, vfs.WalkOptions{FollowLinks: follow}, func(st vfs.FileStatus, err error) error {
		if err != nil {
			return err
		}
		if st.Symlink && !follow {
			if op == "mv" {
				return vfs.NewPathError(op, st.Path, fmt.Errorf("%w: a symbolic link cannot be moved to another file system (nothing was moved; copy with cp -r -L, then remove the source)", fs.ErrInvalid))
			}
			fmt.Fprintf(a.stdio.Err, "vfskit: %s: skipping symbolic link %s (use -L to copy what it links to)\n", op, quoteName(st.Path.Redacted(), quoteMessage))
			return nil
		}
		rel := relativePath(root, st.Path.Path())
		item := transferItem{
			src:  location{fsys: src.fsys, path: st.Path},
			dst:  dst.join(rel),
			dir:  st.IsDir,
			size: st.Size,
		}
		if !st.IsDir {
			plan.bytes += st.Size
		}
		plan.items = append(plan.items, item)
		return nil
	})
	return plan, err
}

// execute runs the plan, streaming every file and showing a progress bar for
// large transfers on a terminal.
func (a *app) execute(ctx context.Context, op string, plan transferPlan, mode vfs.WriteMode) (err error) {
	progress := a.newByteProgress(op, plan.bytes)
	defer func() { progress.finish(err) }()
	for _, it := range plan.items {
		if it.dir {
			if err := it.dst.fsys.Mkdirs(ctx, it.dst.path); err != nil {
				return err
			}
			continue
		}
		n, err := copyFile(ctx, it.src, it.dst, mode, progress)
		if err != nil {
			if mode == vfs.NoOverwrite && errors.Is(err, fs.ErrExist) {
				return existError(op, it.dst)
			}
			return err
		}
		a.log.Debug("copied", "src", it.src, "dst", it.dst, "bytes", n)
	}
	return nil
}

// copyFile streams one file from src to dst (server-side when both are on the
// same file system and it can copy internally) and returns the bytes copied.
func copyFile(ctx context.Context, src, dst location, mode vfs.WriteMode, progress *byteProgress) (int64, error) {
	if _, ok := dst.fsys.(vfs.CopyFS); ok && src.sameFileSystem(dst) {
		n, err := vfs.CopyWithMode(ctx, dst.fsys, dst.path, src.fsys, src.path, mode)
		progress.add(n)
		return n, err
	}
	in, err := src.fsys.Open(ctx, src.path)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	return vfs.CopyFrom(ctx, dst.fsys, dst.path, progress.reader(in), mode)
}

// existError is the error for a destination file that exists (and was left as
// it was): it names the file and tells the user how to get past it, in the
// command's terms rather than the backend's.
func existError(op string, dst location) error {
	hint := "remove the destination first"
	if op == "cp" {
		hint = "kept: -n/--no-clobber"
	}
	return vfs.NewPathError(op, dst.path, fmt.Errorf("%w (%s)", fs.ErrExist, hint))
}

// lastingMemoryKey marks a context whose memory:// file systems outlive the
// command line (see withLastingMemory).
type lastingMemoryKey struct{}

// withLastingMemory returns ctx marked for callers that run command lines
// inside a longer-lived process (tests): there a memory:// store outlives the
// command, so cp and mv may write to it.
func withLastingMemory(ctx context.Context) context.Context {
	return context.WithValue(ctx, lastingMemoryKey{}, true)
}

// refuseEphemeral refuses a cp or mv into a memory:// file system: it lives only
// inside this process, so what the command wrote would be gone when it exits
// (and mv would already have deleted the source). The library may write there
// freely; only the command line refuses.
func refuseEphemeral(ctx context.Context, op string, dst location) error {
	if dst.path.Scheme() != "memory" || ctx.Value(lastingMemoryKey{}) != nil {
		return nil
	}
	consequence := "the copy would be lost"
	if op == "mv" {
		consequence = "the moved data would be lost with the source deleted"
	}
	return usageErr(fmt.Errorf("%s: refusing to write to %s: a memory:// file system lives only inside this vfskit process and is gone when the command exits, so %s (copy to a file:// path or s3:// instead)",
		op, dst.path, consequence))
}

// isLink reports whether p itself (not one of its parents) is a symbolic
// link, on file systems that have links (vfs.RealPathFS); elsewhere it is
// false.
func isLink(ctx context.Context, fsys vfs.FileSystem, p vfs.Path) (bool, error) {
	rp, ok := fsys.(vfs.RealPathFS)
	parent := p.Parent()
	if !ok || parent.IsZero() {
		return false, nil
	}
	real, err := rp.RealPath(ctx, p)
	if err != nil {
		return false, err
	}
	dir, err := rp.RealPath(ctx, parent)
	if err != nil {
		return false, err
	}
	return real != dir.Join(p.Name()), nil
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

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
	case dst.itself && err == nil && dstSt.IsDir != st.IsDir:
		return st, dst, vfs.NewPathError(op, dst.path, fmt.Errorf("%w: with -T the destination must be what the source is (a directory for a directory, a file for a file)", fs.ErrInvalid))
	case dst.itself && (err == nil || errors.Is(err, fs.ErrNotExist)):
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
		switch rel, in := dst.path.Rel(src.path); {
		case in && rel == "":
			return st, dst, vfs.NewPathError(op, dst.path, fmt.Errorf("%w: source and destination are the same", fs.ErrInvalid))
		case in && st.IsDir:
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

// transfer copies (op "cp") or moves (op "mv", across file systems) src to
// dst, where destination puts it, through vfs.CopyTree or vfs.MoveTree, and
// shows a progress bar for large transfers on a terminal. Symbolic links are
// not followed unless follow is set: src itself, when it is a link to a
// directory (named without a trailing "/"), fails the transfer, as does a
// link below src for mv (which would leave it behind); cp skips links below
// src with a warning. A followed link back into the tree fails before
// anything is copied (vfs.ErrLinkLoop).
//
// mv deletes at the source only the files it copied that are still the
// version it read; what changed or appeared meanwhile stays, and the error
// (a *vfs.LeftError) names every such file.
func (a *app) transfer(ctx context.Context, op string, src, dst location, recursive, follow bool, overwrite vfs.OverwritePolicy) (err error) {
	arg := dst
	st, dst, err := destination(ctx, op, src, dst, recursive)
	if err != nil {
		return err
	}
	if st.IsDir && !follow && !src.dir {
		switch link, err := vfs.IsSymlink(ctx, src.fsys, src.path); {
		case err != nil:
			return err
		case link && op == "mv":
			return vfs.NewPathError(op, src.path, fmt.Errorf("%w: a symbolic link cannot be moved to another file system (nothing was moved)", fs.ErrInvalid))
		case link:
			return vfs.NewPathError(op, src.path, fmt.Errorf("%w: a symbolic link to a directory is not followed without -L (cp -r -L copies the directory it links to, as does naming it with a trailing /)", fs.ErrInvalid))
		}
	}
	var (
		progress *byteProgress
		seen     int64
		total    int
	)
	opts := vfs.CopyOptions{Overwrite: overwrite, KeepOnCancel: op == "cp", Progress: func(p vfs.CopyProgress) {
		total = p.TotalFiles
		if progress == nil {
			progress = a.newByteProgress(op, p.TotalBytes)
		}
		progress.add(p.Bytes - seen)
		seen = p.Bytes
	}}
	defer func() {
		if progress != nil {
			progress.finish(err)
		}
	}()
	switch {
	case op == "mv":
		opts.Links = vfs.LinksRefuse
	case follow:
		opts.Links = vfs.LinksFollow
	}
	var res *vfs.CopyResult
	if op == "mv" {
		var mr *vfs.MoveResult
		mr, err = vfs.MoveTree(ctx, dst.fsys, dst.path, src.fsys, src.path, opts)
		if mr != nil {
			res = mr.CopyResult
			for _, l := range mr.Left {
				fmt.Fprintf(a.stdio.Err, "vfskit: mv: left at the source: %s (%s)\n", quoteName(l.Path.Redacted(), quoteMessage), l.Reason)
			}
			for _, k := range mr.Unnameable {
				fmt.Fprintf(a.stdio.Err, "vfskit: mv: left at the source: the key %q (no path names it; written while the move ran)\n", k)
			}
			if n := len(mr.Left) + len(mr.Unnameable); n > 0 {
				err = vfs.NewPathError("mv", src.path, fmt.Errorf("%w: %d file(s) stay at the source, listed above (their copies at %s hold the versions that were read; nothing else was left)", vfs.ErrChanged, n, dst.path.Redacted()))
			}
		}
	} else {
		res, err = vfs.CopyTree(ctx, dst.fsys, dst.path, src.fsys, src.path, opts)
	}
	if res != nil {
		for _, l := range res.Links {
			fmt.Fprintf(a.stdio.Err, "vfskit: %s: skipping symbolic link %s (use -L to copy what it links to)\n", op, quoteName(l.Redacted(), quoteMessage))
		}
		a.log.Debug("copied", "src", src, "dst", dst, "files", len(res.Files), "kept", len(res.Skipped), "bytes", res.Bytes)
		switch {
		case err == nil || ctx.Err() == nil:
		case op == "mv":
			a.moveInterrupted(src, arg, dst, st.IsDir, overwrite, res)
			return &toldError{err}
		default:
			a.interrupted(src, dst, follow, res, total)
			return &toldError{err}
		}
	}
	return transferError(op, overwrite, err)
}

// interrupted tells, after cp was interrupted, what it copied and the
// command line that finishes the copy.
func (a *app) interrupted(src, dst location, follow bool, res *vfs.CopyResult, total int) {
	flags := "-r -T --update=none"
	if follow {
		flags += " -L"
	}
	kept := ""
	if len(res.Skipped) > 0 {
		kept = fmt.Sprintf(" (%s kept as they were)", count(len(res.Skipped), "existing file"))
	}
	args := []location{src, dst}
	if a.several != nil { // SRC... DIR: each source into DIR again
		flags, args = strings.Replace(flags, " -T", "", 1), a.several
	}
	quoted := shellArgs(args)
	fmt.Fprintf(a.stdio.Err, "vfskit: cp: interrupted: copied %s (%s) of %d to %s%s; to copy the rest, re-run with --update=none: vfskit cp %s %s\n",
		count(len(res.Files), "file"), humanBytes(res.Bytes), total, quoteName(dst.path.Redacted(), quoteMessage), kept,
		flags, strings.Join(quoted, " "))
}

// moveInterrupted tells, after mv was interrupted once src was copied to to
// (where the argument dst put it; an interrupted copy is undone, see
// vfs.MoveTree), that it stopped deleting at the source, and how to finish:
// the same mv again (with several sources, the one it stopped in and those
// not moved yet), which copies the files left at the source over their
// copies, then deletes them there. Where the same mv would not finish it,
// it says why instead: with -n it keeps at the source a file whose
// destination exists, and a directory moved to a new name dst would now go
// into dst, unless moved into dst's parent under the same name.
func (a *app) moveInterrupted(src, dst, to location, dir bool, overwrite vfs.OverwritePolicy, res *vfs.CopyResult) {
	args := []location{src, dst}
	if a.several != nil {
		args = a.several
	}
	if dir && to.path == dst.path && to.path.Name() == src.path.Name() {
		args = []location{src, {path: dst.path.Parent()}}
	}
	quoted := shellArgs(args)
	if args[len(args)-1].path != dst.path {
		quoted[len(quoted)-1] += "/"
	}
	finish := "; to finish, re-run it (it copies the files left at the source over their copies, then deletes them there): vfskit mv " + strings.Join(quoted, " ")
	switch {
	case overwrite == vfs.OverwriteSkip:
		finish = "; mv -n again would keep them there, as their destination exists"
	case dir && to.path == dst.path && to.path.Name() != src.path.Name():
		finish = "; the same mv would not finish it: it would move the directory into " + quoteName(dst.path.Redacted(), quoteMessage) + ", a directory now"
	}
	fmt.Fprintf(a.stdio.Err, "vfskit: mv: interrupted: copied %s (%s) to %s, then stopped deleting them at the source%s\n",
		count(len(res.Files), "file"), humanBytes(res.Bytes), quoteName(to.path.Redacted(), quoteMessage), finish)
}

// shellArgs quotes the paths of args for a command line to paste, secrets
// hidden.
func shellArgs(args []location) []string {
	quoted := make([]string, len(args))
	for i, l := range args {
		quoted[i] = quoteName(l.path.Redacted(), quoteShellEscape)
	}
	return quoted
}

// count is n and noun in words, grammatically: "1 file", "0 files",
// "2 directories".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if stem, ok := strings.CutSuffix(noun, "y"); ok && !strings.HasSuffix(stem, "e") {
		return fmt.Sprintf("%d %sies", n, stem)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// transferError puts a failed copy in the command's terms: an existing
// destination file (kept) names how to get past it; a link below the source
// of mv says it cannot be moved.
func transferError(op string, overwrite vfs.OverwritePolicy, err error) error {
	var pe *fs.PathError
	switch {
	case err == nil || !errors.As(err, &pe):
		return err
	case overwrite == vfs.OverwriteNever && errors.Is(err, fs.ErrExist):
		return &fs.PathError{Op: op, Path: pe.Path, Err: fmt.Errorf("%w (%s)", fs.ErrExist, existHint(op))}
	case errors.Is(err, vfs.ErrLinkRefused):
		return &fs.PathError{Op: op, Path: pe.Path, Err: fmt.Errorf("%w: a symbolic link cannot be moved to another file system (nothing was moved; copy with cp -r -L, then remove the source)", fs.ErrInvalid)}
	}
	return err
}

// existError is the error for a destination file that exists (and was left as
// it was): it names the file and tells the user how to get past it, in the
// command's terms rather than the backend's.
func existError(op string, dst location) error {
	return vfs.NewPathError(op, dst.path, fmt.Errorf("%w (%s)", fs.ErrExist, existHint(op)))
}

// existHint tells how to get past an existing destination file.
func existHint(op string) string {
	if op == "cp" {
		return "kept: --update=none-fail"
	}
	return "kept: -n/--no-clobber"
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

package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) rmCommand() *cobra.Command {
	var recursive, noPreserveRoot, force bool
	cmd := &cobra.Command{
		Use:   "rm [-r] [-f] [--no-preserve-root] URI...",
		Short: "Remove files or directories",
		Long: `Remove files. A directory needs -r, which removes it with everything below it;
symbolic links are removed, never followed. A missing path is an error; the
other arguments are still removed and the exit status is 1. With -f a missing
path is fine (nothing is printed and it does not change the exit status), as
with coreutils' rm -f; -rf combines both.

rm refuses, as coreutils does: "." and ".." (and any path ending in them); with
-r, a root ("/", a bucket "s3://bucket", "memory://name/") unless
--no-preserve-root is given (which removes everything in the root); the
current directory and its parents. On an
object store, rm -r lists the prefix again after deleting and fails when any
key is left.`,
		Example: `  vfskit rm s3://bucket/tmp/part-0
  vfskit rm -r file:///tmp/checkpoints/old
  vfskit rm -rf memory://scratch/not-there`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			return a.forEachArg(cmd.Context(), argv, func(arg string, loc location) error {
				if err := refuseRemove("rm", arg, loc, recursive, noPreserveRoot); err != nil {
					return err
				}
				err := a.rm(cmd, loc, recursive)
				if force && errors.Is(err, fs.ErrNotExist) && isMissing(cmd, loc) {
					return nil
				}
				return err
			})
		}),
	}
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "remove directories and everything below them")
	cmd.Flags().BoolVarP(&force, "force", "f", false, "ignore missing paths (and never prompt: rm never does)")
	cmd.Flags().BoolVar(&noPreserveRoot, "no-preserve-root", false, `allow "rm -r" of a root ("/", s3://bucket, memory://name/)`)
	return cmd
}

// refuseRemove returns why op ("rm", or "mv", which removes its source) must
// not remove loc (typed as arg), or nil: a path whose last segment, after any
// query was split off, is "." or ".." (loc.last), with
// recursive a root unless noPreserveRoot (rm only), or the current directory
// or one of its parents on the local disk.
func refuseRemove(op, arg string, loc location, recursive, noPreserveRoot bool) error {
	what := "remove"
	if op == "mv" {
		what = "move"
	}
	if loc.last == "." || loc.last == ".." {
		return fmt.Errorf("%s: refusing to %s '.' or '..' directory: skipping %q", op, what, vfs.RedactURI(arg))
	}
	if !recursive {
		return nil // rm without -r removes no directory at all
	}
	if isRoot(loc) {
		switch {
		case noPreserveRoot:
			return nil
		case op == "rm":
			return fmt.Errorf("rm: it is dangerous to operate recursively on %q (the root of %s); use --no-preserve-root to override this failsafe", vfs.RedactURI(arg), vfs.RedactURL(loc.fsys.URI()))
		}
		return fmt.Errorf("%s: refusing to %s %q: it is the root of %s", op, what, vfs.RedactURI(arg), vfs.RedactURL(loc.fsys.URI()))
	}
	if cwd, ok := containsWorkingDirectory(loc); ok {
		why := "it contains the current directory"
		if cwd {
			why = "it is the current directory"
		}
		return fmt.Errorf("%s: refusing to %s %q: %s", op, what, vfs.RedactURI(arg), why)
	}
	return nil
}

// containsWorkingDirectory reports whether loc, on the local disk, is the
// process's working directory (cwd true) or one of its parents, comparing real
// paths (symbolic links in loc's parents and in the working directory resolved;
// loc itself, if a link, is only the link).
func containsWorkingDirectory(loc location) (cwd, ok bool) {
	if loc.path.Scheme() != "file" {
		return false, false
	}
	wd, err := os.Getwd()
	if err != nil {
		return false, false
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	p := loc.path.Path()
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		p = filepath.Join(dir, filepath.Base(p))
	}
	w, werr := vfs.ParsePath(filepath.ToSlash(wd))
	d, derr := vfs.ParsePath(filepath.ToSlash(p))
	if werr != nil || derr != nil {
		return false, false
	}
	rel, in := w.Rel(d)
	return in && rel == "", in
}

func (a *app) rm(cmd *cobra.Command, loc location, recursive bool) error {
	ctx := cmd.Context()
	st, err := loc.fsys.Stat(ctx, loc.path)
	if err != nil {
		return missing("rm", loc, err)
	}
	if st.IsDir && !recursive {
		return vfs.NewPathError("rm", loc.path, fmt.Errorf("%w (use -r to remove a directory)", vfs.ErrIsDir))
	}
	a.log.Debug("remove", "path", loc.path, "recursive", recursive)
	if isRoot(loc) && recursive {
		return a.emptyRoot(cmd, loc)
	}
	if err := loc.fsys.Delete(ctx, loc.path, recursive); err != nil {
		return err
	}
	return remains(cmd, loc)
}

// isMissing reports whether loc does not exist now: rm -f forgives only an
// argument that is missing, never a failure to remove something that is there.
func isMissing(cmd *cobra.Command, loc location) bool {
	_, err := loc.fsys.Stat(cmd.Context(), loc.path)
	return errors.Is(err, fs.ErrNotExist)
}

// isRoot reports whether loc is the root of its file system.
func isRoot(loc location) bool { return loc.path.Parent().IsZero() }

// emptyRoot is "rm -r --no-preserve-root" of a root, which no file system
// deletes itself: it removes every entry of the root, then checks that none is
// left.
func (a *app) emptyRoot(cmd *cobra.Command, loc location) error {
	ctx := cmd.Context()
	entries, err := loc.fsys.List(ctx, loc.path)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if err := loc.fsys.Delete(ctx, e.Path, true); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, e := range entries {
		if err := remains(cmd, location{fsys: loc.fsys, path: e.Path}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// remains checks, after a delete reported success, that loc is gone: a store
// that silently kept some keys (or a writer racing with rm) makes rm fail,
// naming what is left, rather than exit 0 over data still there.
func remains(cmd *cobra.Command, loc location) error {
	ctx := cmd.Context()
	_, err := loc.fsys.Stat(ctx, loc.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	var left []string
	n := 0
	_ = vfs.Walk(ctx, loc.fsys, loc.path, func(st vfs.FileStatus, err error) error {
		if err != nil || st.IsDir {
			return nil
		}
		n++
		if len(left) < 3 {
			left = append(left, st.Path.String())
		}
		return nil
	})
	if n == 0 {
		return vfs.NewPathError("rm", loc.path, errors.New("the delete reported success but the path still exists"))
	}
	return vfs.NewPathError("rm", loc.path, fmt.Errorf("%w: the delete reported success but %d files remain (%s)",
		vfs.ErrDirNotEmpty, n, strings.Join(left, ", ")))
}

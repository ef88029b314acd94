package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/spf13/cobra"

	"github.com/vfskit/vfskit/vfs"
)

func (a *app) cpCommand() *cobra.Command {
	var recursive, noClobber, overwrite, follow, itself bool
	var update string
	cmd := &cobra.Command{
		Use:   "cp [-r] [-L] [-T] [-n | -u | --update=WHEN] SRC... DST",
		Short: "Copy files between any two file systems",
		Long: `Copy SRC to DST; each may be on any file system (s3://, file:// or a plain
path, memory://, ...). Files are streamed, never held in memory whole; within
one file system that can copy internally (S3), the copy happens server-side.

When DST is an existing directory, SRC is copied into it as DST/<its name>,
unless -T (--no-target-directory) says DST is the copy itself. A DST ending in
"/" (s3://bucket/dir/) is a directory even before it exists: a file is copied
into it, while a directory copied with -r becomes it when it does not exist
yet (cp -r src s3://bucket/new/ writes new/a.txt for src/a.txt, as cp -r, aws
s3 cp --recursive and rclone copy do).
With several sources, DST must be an existing directory (on object stores, a
prefix ending in "/" is one, keys or not) and each SRC is copied
into it as DST/<its name>, as one cp SRC DST each; a source that fails is
reported and the others are still copied (exit status 1). A directory SRC
needs -r. Below SRC, symbolic links are skipped with a warning unless -L is
given; with -L a link back to a directory
being copied is an error before anything is copied. SRC itself, when it is a
symbolic link to a directory, is not followed by -r without -L either: the copy
fails naming it (write SRC/ to copy the directory it links to). Writing into memory:// is
refused: that store is gone when vfskit exits.

An existing destination file is replaced, as cp, aws s3 cp and rclone copy do;
the new content appears at once, whole, when the copy is complete. --update
says otherwise, with coreutils' meanings:

  --update=all        replace existing destination files (the default)
  --update=none, -n   keep existing destination files and copy the rest
  --update=none-fail  keep them and fail (exit 1) naming the first one
  --update=older, -u  replace a destination file only when it is older than
                      the source file (--update alone means older)

On any error the destination file is not published. A cp -r that is
interrupted (Ctrl-C, SIGTERM) keeps the files it copied whole, says how many
and prints the command that finishes the copy (cp -r -T --update=none SRC
DST, or cp -r --update=none SRC... DIR: it copies the rest and keeps what is
there), and exits 130.

SRC "-" is standard input and DST "-" standard output (for a local file named
"-", write ./-); pipes and FIFOs (/dev/stdin too) are streamed.

On a terminal, transfers of 4 MiB or more show a progress bar with bytes and rate
on standard error.`,
		Example: `  vfskit cp ./a.bin s3://bucket/a.bin
  vfskit cp -r s3://bucket/logs file:///tmp/logs
  vfskit cp -r --update=none s3://bucket/logs file:///tmp/logs   # finish an interrupted copy
  vfskit cp -n ./a.bin s3://bucket/a.bin      # keep it if it exists
  vfskit cp -r ./a.bin ./logs s3://bucket/in/ # several sources into a directory
  tar c dir | vfskit cp - s3://bucket/dir.tar
  vfskit cp s3://bucket/dir.tar - | tar t
  vfskit --endpoint http://127.0.0.1:8333 --path-style cp a.bin s3://bucket/`,
		Args: args(cobra.MinimumNArgs(2)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			ctx := cmd.Context()
			policy, err := updatePolicy(update, noClobber)
			if err != nil {
				return err
			}
			locs, err := a.resolveStdio(ctx, argv)
			if err != nil {
				return err
			}
			srcs, dst := locs[:len(locs)-1], locs[len(locs)-1]
			dst.itself = itself
			if len(srcs) > 1 {
				if err := intoDirectory(ctx, "cp", dst); err != nil {
					return err
				}
				if slices.ContainsFunc(srcs, location.isStdio) {
					return usageErr(errors.New("cp: standard input has no name to give a file in a directory: copy it alone, to a file"))
				}
				if err := refuseEphemeral(ctx, "cp", dst); err != nil {
					return err
				}
				a.several = locs
				return eachSource(ctx, srcs, func(_ int, src location) error {
					return a.transfer(ctx, "cp", src, dst, recursive, follow, policy)
				})
			}
			src := srcs[0]
			if !dst.isStdio() {
				if err := refuseEphemeral(ctx, "cp", dst); err != nil {
					return err
				}
			}
			switch {
			case src.isStdio() && dst.isStdio():
				_, err := io.Copy(a.stdio.Out, a.stdin(ctx))
				return err
			case src.isStdio():
				return a.copyStdin(ctx, dst, policy)
			case dst.isStdio():
				return a.copyStdout(cmd, src)
			}
			return a.transfer(ctx, "cp", src, dst, recursive, follow, policy)
		}),
	}
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "copy directories and everything below them")
	cmd.Flags().BoolVarP(&noClobber, "no-clobber", "n", false, "keep destination files that exist and copy the rest (--update=none)")
	cmd.Flags().StringVarP(&update, "update", "u", "all", "which existing destination files to replace: all, none, none-fail or older (-u alone: older)")
	cmd.Flags().Lookup("update").NoOptDefVal = "older"
	cmd.Flags().BoolVar(&overwrite, "overwrite", false, "replace destination files that exist (the default)")
	_ = cmd.Flags().MarkHidden("overwrite") // accepted for scripts written when -n was the default
	cmd.Flags().BoolVarP(&itself, "no-target-directory", "T", false, "DST is the copy itself, even when it is an existing directory (never copy into it)")
	cmd.Flags().BoolVarP(&follow, "dereference", "L", false, "with -r, follow symbolic links (a link back into the tree is an error)")
	cmd.MarkFlagsMutuallyExclusive("no-clobber", "overwrite", "update")
	return cmd
}

// updatePolicy is the overwrite policy of cp's --update (coreutils' values)
// and -n.
func updatePolicy(update string, noClobber bool) (vfs.OverwritePolicy, error) {
	if noClobber {
		return vfs.OverwriteSkip, nil
	}
	switch update {
	case "all":
		return vfs.OverwriteAlways, nil
	case "none":
		return vfs.OverwriteSkip, nil
	case "none-fail":
		return vfs.OverwriteNever, nil
	case "older":
		return vfs.OverwriteOlder, nil
	}
	return 0, usageErr(fmt.Errorf("cp: --update=%q: expected all, none, none-fail or older", update))
}

// copyStdin streams standard input into the file dst, which must name a file:
// standard input has no name to give a file in a directory.
//
// Standard input has no modification time, so --update=older replaces, as
// --update=all does; --update=none keeps an existing dst and discards the
// input.
func (a *app) copyStdin(ctx context.Context, dst location, policy vfs.OverwritePolicy) error {
	mode := vfs.Overwrite
	if policy == vfs.OverwriteNever || policy == vfs.OverwriteSkip {
		mode = vfs.NoOverwrite
	}
	st, err := dst.fsys.Stat(ctx, dst.path)
	if dst.dir || err == nil && st.IsDir {
		return usageErr(fmt.Errorf("cp: standard input has no name: give a file as the destination, not the directory %s", dst.path.Redacted()))
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	n, err := vfs.CopyFrom(ctx, dst.fsys, dst.path, a.stdin(ctx), mode)
	switch {
	case policy == vfs.OverwriteSkip && errors.Is(err, fs.ErrExist):
		a.log.Debug("kept", "dst", dst)
		return nil
	case mode == vfs.NoOverwrite && errors.Is(err, fs.ErrExist):
		return existError("cp", dst)
	}
	a.log.Debug("copied", "src", "standard input", "dst", dst, "bytes", n)
	return err
}

// copyStdout streams the file src to standard output, as cat does.
func (a *app) copyStdout(cmd *cobra.Command, src location) error {
	st, err := src.fsys.Stat(cmd.Context(), src.path)
	if err != nil {
		return missing("cp", src, err)
	}
	if st.IsDir {
		return vfs.NewPathError("cp", src.path, fmt.Errorf("%w: a directory cannot be copied to standard output", vfs.ErrIsDir))
	}
	return a.cat(cmd, src)
}

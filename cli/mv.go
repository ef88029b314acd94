package cli

import (
	"context"
	"errors"
	"io/fs"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) mvCommand() *cobra.Command {
	var force, noClobber bool
	cmd := &cobra.Command{
		Use:   "mv [-f | -n] SRC... DST",
		Short: "Move or rename a file or directory, also across file systems",
		Long: `Move SRC to DST. Within one local or memory file system this is a rename
(atomic). Otherwise — across file systems, and within one object store, where
a rename would be a copy and a delete — the tree is copied, streaming; once
everything was copied, exactly the files it copied are deleted, each only if
it is still the version that was copied. A file changed or created in SRC
while the move ran stays there and is named, and the exit status is 1.
Directories left empty are removed. When DST is an existing directory, SRC
is moved into it as DST/<its name>; a DST ending in "/" that does not exist
is a directory too: a file is moved into it, while a directory becomes it
(as with cp -r). With several sources, DST must be an
existing directory (on object stores, a prefix ending in "/" is one, keys or
not) and each SRC is moved into it as DST/<its name>, as one
mv SRC DST each; a source that fails is reported and the others are still
moved (exit status 1). An existing destination file is replaced (-f, --force, the default), as
mv does; with -n (--no-clobber) it is kept and the source stays where it is
(for a tree, the files whose destination exists stay; the rest move). When
the destination exists, a move within one file system is a copy and delete
too, and a directory is merged into the existing one. Across file systems, a tree
holding symbolic links is refused (a link cannot be moved there), and moving
into memory:// is refused: that store is gone when vfskit exits. An object-store
prefix holding keys no path can name ("src/./x", "src//x") is refused, naming
them, before anything is copied or deleted. As with rm,
"." and "..", a root and the current directory or its parents cannot be moved.`,
		Example: `  vfskit mv s3://bucket/tmp/out s3://bucket/final/out
  vfskit mv ./report.csv s3://bucket/reports/
  vfskit mv ./a.csv ./b.csv s3://bucket/reports/   # several sources into a directory
  vfskit mv -n ./report.csv s3://bucket/reports/   # keep it if it exists`,
		Args: args(cobra.MinimumNArgs(2)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			ctx := cmd.Context()
			locs, err := a.resolveAll(ctx, argv)
			if err != nil {
				return err
			}
			srcs, dst := locs[:len(locs)-1], locs[len(locs)-1]
			if len(srcs) > 1 {
				if err := intoDirectory(ctx, "mv", dst); err != nil {
					return err
				}
			}
			if err := refuseEphemeral(ctx, "mv", dst); err != nil {
				return err
			}
			policy := vfs.OverwriteAlways
			if noClobber {
				policy = vfs.OverwriteSkip
			}
			return eachSource(ctx, srcs, func(i int, src location) error {
				if len(srcs) > 1 { // for the command that finishes it
					a.several = locs[i:]
				}
				return a.move(ctx, argv[i], src, dst, policy)
			})
		}),
	}
	cmd.Flags().BoolVarP(&force, "force", "f", false, "replace destination files that exist (the default)")
	cmd.Flags().BoolVarP(&noClobber, "no-clobber", "n", false, "keep destination files that exist; their sources stay")
	cmd.MarkFlagsMutuallyExclusive("force", "no-clobber")
	return cmd
}

// move is mv of one source, src (the argument arg), to dst.
func (a *app) move(ctx context.Context, arg string, src, dst location, policy vfs.OverwritePolicy) error {
	if err := refuseRemove("mv", arg, src, true, false); err != nil {
		return err
	}
	// A rename is atomic only on a real file system; an object
	// store's is a copy and a delete that cannot tell a key
	// rewritten meanwhile, so there the move deletes through
	// vfs.MoveTree, each file only if unchanged.
	if src.sameFileSystem(dst) && src.fsys.Kind() == vfs.KindFileSystem {
		_, to, err := destination(ctx, "mv", src, dst, true)
		if err != nil {
			return err
		}
		err = src.fsys.Rename(ctx, src.path, to.path)
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		if policy == vfs.OverwriteSkip {
			a.log.Debug("kept", "dst", to, "src", src)
			return nil
		}
		// The destination exists: replace it as a move across file
		// systems does, copying and deleting what was copied.
	}
	return a.transfer(ctx, "mv", src, dst, true, false, policy)
}

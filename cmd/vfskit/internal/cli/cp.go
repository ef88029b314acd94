package cli

import (
	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) cpCommand() *cobra.Command {
	var recursive, overwrite, follow bool
	cmd := &cobra.Command{
		Use:   "cp [-r] [-L] [--overwrite] SRC DST",
		Short: "Copy files between any two file systems",
		Long: `Copy SRC to DST; each may be on any file system (s3://, file:// or a plain
path, memory://, ...). Files are streamed, never held in memory whole; within
one file system that can copy internally (S3), the copy happens server-side.

When DST is an existing directory, or ends in "/" (s3://bucket/dir/), SRC is
copied into it. A directory SRC needs -r. Below SRC, symbolic links are
skipped with a warning unless -L is given; with -L a link back to a directory
being copied is an error before anything is copied. Writing into memory:// is
refused: that store is gone when vfskit exits. An existing destination file is an
error unless --overwrite is given. On any error the destination file is not
published.

On a terminal, transfers of 4 MiB or more show a progress bar with bytes and rate
on standard error.`,
		Example: `  vfskit cp ./a.bin s3://bucket/a.bin
  vfskit cp -r s3://bucket/logs file:///tmp/logs
  vfskit --endpoint http://127.0.0.1:8333 --path-style cp a.bin s3://bucket/`,
		Args: args(cobra.ExactArgs(2)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			ctx := cmd.Context()
			locs, err := resolveAll(ctx, argv)
			if err != nil {
				return err
			}
			src, dst := locs[0], locs[1]
			if err := refuseEphemeral(ctx, "cp", dst); err != nil {
				return err
			}
			plan, err := a.planTransfer(ctx, "cp", src, dst, recursive, follow)
			if err != nil {
				return err
			}
			mode := vfs.NoOverwrite
			if overwrite {
				mode = vfs.Overwrite
			}
			return a.execute(ctx, "cp", plan, mode)
		}),
	}
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "copy directories and everything below them")
	cmd.Flags().BoolVar(&overwrite, "overwrite", false, "replace destination files that exist")
	cmd.Flags().BoolVarP(&follow, "dereference", "L", false, "with -r, follow symbolic links (a link back into the tree is an error)")
	return cmd
}

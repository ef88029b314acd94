package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) rmCommand() *cobra.Command {
	var recursive bool
	cmd := &cobra.Command{
		Use:   "rm [-r] URI...",
		Short: "Remove files or directories",
		Long: `Remove files. A directory needs -r, which removes it with everything below it.
A missing path is an error; the other arguments are still removed and the
exit status is 1.`,
		Example: `  vfskit rm s3://bucket/tmp/part-0
  vfskit rm -r file:///tmp/checkpoints/old`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			return forEach(cmd.Context(), argv, func(loc location) error { return a.rm(cmd, loc, recursive) })
		}),
	}
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "remove directories and everything below them")
	return cmd
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
	return loc.fsys.Delete(ctx, loc.path, recursive)
}

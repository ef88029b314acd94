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
A missing path is an error.`,
		Example: `  vfskit rm s3://bucket/tmp/part-0
  vfskit rm -r file:///tmp/checkpoints/old`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			locs := make([]location, len(argv))
			for i, arg := range argv {
				loc, err := resolve(cmd.Context(), arg)
				if err != nil {
					return err
				}
				locs[i] = loc
			}
			for _, loc := range locs {
				if err := a.rm(cmd, loc, recursive); err != nil {
					return err
				}
			}
			return nil
		}),
	}
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "remove directories and everything below them")
	return cmd
}

func (a *app) rm(cmd *cobra.Command, loc location, recursive bool) error {
	ctx := cmd.Context()
	st, err := loc.fsys.Stat(ctx, loc.path)
	if err != nil {
		return err
	}
	if st.IsDir && !recursive {
		return vfs.NewPathError("rm", loc.path, fmt.Errorf("%w (use -r to remove a directory)", vfs.ErrIsDir))
	}
	a.log.Debug("remove", "path", loc.path, "recursive", recursive)
	return loc.fsys.Delete(ctx, loc.path, recursive)
}

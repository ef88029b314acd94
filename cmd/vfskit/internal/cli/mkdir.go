package cli

import (
	"github.com/spf13/cobra"
)

func (a *app) mkdirCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "mkdir URI...",
		Short: "Create directories (and their missing parents)",
		Long: `Create each directory and any missing parents, like mkdir -p. An existing
directory is fine; a file in the way is an error. On object stores (S3)
directories are implicit, so this succeeds without writing anything.`,
		Example: `  vfskit mkdir file:///tmp/data/in
  vfskit mkdir memory://demo/x/y`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			for _, arg := range argv {
				loc, err := resolve(cmd.Context(), arg)
				if err != nil {
					return err
				}
				if err := loc.fsys.Mkdirs(cmd.Context(), loc.path); err != nil {
					return err
				}
			}
			return nil
		}),
	}
}

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
directories are implicit, so this succeeds without writing anything. A
failure is reported and the other directories are still created (exit status 1).`,
		Example: `  vfskit mkdir file:///tmp/data/in
  vfskit mkdir memory://demo/x/y`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			return a.forEach(cmd.Context(), argv, func(loc location) error { return loc.fsys.Mkdirs(cmd.Context(), loc.path) })
		}),
	}
}

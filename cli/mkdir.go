package cli

import (
	"github.com/spf13/cobra"
)

func (a *app) mkdirCommand() *cobra.Command {
	var parents bool
	cmd := &cobra.Command{
		Use:   "mkdir [-p] URI...",
		Short: "Create directories (and their missing parents)",
		Long: `Create each directory and any missing parents: mkdir is always mkdir -p
(-p/--parents is accepted for scripts written for coreutils). An existing
directory is fine; a file in the way is an error. A failure is reported and
the other directories are still created (exit status 1).

On object stores (s3://, gs://, azblob://) a directory is only a prefix that
some object's key starts with: mkdir only checks the name and writes nothing,
and the directory is listed once a file is written below it.`,
		Example: `  vfskit mkdir file:///tmp/data/in
  vfskit mkdir -p file:///tmp/data/x/y`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			return a.forEach(cmd.Context(), argv, func(loc location) error { return loc.fsys.Mkdirs(cmd.Context(), loc.path) })
		}),
	}
	cmd.Flags().BoolVarP(&parents, "parents", "p", false, "create missing parents (always done; accepted for coreutils compatibility)")
	return cmd
}

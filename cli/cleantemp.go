package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/vfskit/vfskit/vfs"
)

func (a *app) cleanTempCommand() *cobra.Command {
	var olderThan time.Duration
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "clean-temp [--older-than 1h] [--dry-run] DIR...",
		Short: "Remove temporary files left by writers that were killed",
		Long: `Remove the hidden temporary files (.vfskit-tmp-*) that a vfskit writer killed in
the middle of a write leaves next to its target on file://, in each DIR and
below it, when they were last modified longer ago than --older-than (1h by
default; younger ones may belong to writes still in flight). Only files named
exactly as vfskit names them are removed; symbolic links are neither followed
nor removed. Each removed file is printed; with --dry-run nothing is removed
and the files are printed as "would remove". Object stores and memory:// leave
no temporary files, so there is nothing to clean there.`,
		Example: `  vfskit clean-temp /var/data --dry-run
  vfskit clean-temp file:///var/checkpoints --older-than 24h`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			if olderThan < 0 {
				return usageErr(fmt.Errorf("--older-than %s is negative (expected a duration such as 1h or 30m)", olderThan))
			}
			return a.forEach(cmd.Context(), argv, func(loc location) error {
				clean, verb := vfs.CleanTemp, "removed"
				if dryRun {
					clean, verb = vfs.FindTemp, "would remove"
				}
				found, err := clean(cmd.Context(), loc.fsys, loc.path, olderThan)
				for _, p := range found {
					fmt.Fprintln(cmd.OutOrStdout(), verb, a.pathName(p))
				}
				return err
			})
		}),
	}
	cmd.Flags().DurationVar(&olderThan, "older-than", time.Hour, "remove only temporary files last modified longer ago than this")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print what would be removed, remove nothing")
	return cmd
}

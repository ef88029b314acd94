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
		Long: `Remove what vfskit writers killed in the middle of a write left behind, in
each DIR and below it, when it was last modified longer ago than --older-than
(1h by default; younger ones may belong to writes still in flight):

  file://  the hidden temporary files (.vfskit-tmp-*) written next to targets
  s3://    incomplete multipart uploads (files larger than a part), each named
           by its marker object .vfskit-upload-<write id><check> next to the target
           (hidden from listings):
           the upload is aborted and the marker deleted (for example
           vfskit clean-temp s3://bucket/checkpoints --older-than 24h)

Only what vfskit's own writers left is removed, recognised by the write id
in its name and metadata: another tool's files, objects and multipart uploads
stay. So does, however old, the state of a recoverable writer's streams
(vfs.NewRecoverableWriter), which a token may still need: in-progress files
(.vfskit-inprogress-*), temporary objects (.vfskit-rw-*) and the multipart
uploads of s3:// streams; docs/exactly-once.md says how to remove those of a
stream that is given up. Symbolic links are neither followed nor removed. Each
removed file or marker is printed; with --dry-run nothing is removed and they
are printed as "would remove". gs:// and azblob:// leave nothing to clean (an
interrupted upload is never visible there and the service discards it within
a week), and memory:// leaves nothing either.
`,
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

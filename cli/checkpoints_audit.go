package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
)

func (a *app) checkpointsAuditCommand() *cobra.Command {
	var del, dryRun bool
	cmd := &cobra.Command{
		Use:   "audit JOBDIR [--map OLD=NEW]... [--delete]",
		Short: "Find the files of a job that no completed checkpoint references",
		Long: `List everything under a job's checkpoint directory (<base>/<job id>: chk-N,
shared/, taskowned/), read every _metadata, and report the orphans: files that
no completed checkpoint of the job references, with their sizes. Shared state
recorded by absolute paths of the machine that wrote it is recognised with
--map OLD=NEW.

Nothing is deleted unless --delete is given (a dry run is the default), and
then only the orphans that no completed checkpoint references and that are
older than the newest completed checkpoint, when every _metadata decodes and
every referenced file was found. Nothing outside JOBDIR is ever deleted.`,
		Example: `  vfskit checkpoints audit s3://bucket/checkpoints/<job id>
  vfskit checkpoints audit file:///flink/checkpoints/<job id> --map file:/state/checkpoint=file:///flink/checkpoints --delete`,
		Args: args(cobra.ExactArgs(1)),
	}
	maps := a.mapFlag(cmd)
	cmd.Flags().BoolVar(&del, "delete", false, "delete the deletable orphans (default: only report them)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", true, "report only, the default (with --delete, --dry-run still deletes nothing)")
	cmd.RunE = a.run(func(cmd *cobra.Command, argv []string) error {
		ctx := cmd.Context()
		opts, err := maps()
		if err != nil {
			return err
		}
		loc, err := a.resolve(ctx, argv[0])
		if err != nil {
			return err
		}
		au, err := checkpointstorage.AuditJob(ctx, loc.path, opts...)
		if err != nil {
			return err
		}
		w := a.stdio.Out
		completed := 0
		for _, s := range au.Snapshots {
			if s.Completed {
				completed++
			}
		}
		fmt.Fprintf(w, "%s: %d files, %s; %d completed checkpoints reference %d files (%s here)\n",
			a.pathName(au.JobDir), au.Files, humanBytes(au.Bytes), completed, len(au.Referenced), humanBytes(au.ReferencedBytes))
		for _, m := range au.Missing() {
			fmt.Fprintf(w, "referenced but %s: %s\n", m.Problem(), a.pathName(m.Path))
		}
		for _, o := range au.Orphans {
			state := "deletable"
			if !o.Deletable {
				state = "kept: " + o.Reason
			}
			fmt.Fprintf(w, "orphan %s %s (%s)\n", a.pathName(o.Path), humanBytes(o.Size), state)
		}
		if !del || (cmd.Flags().Changed("dry-run") && dryRun) {
			fmt.Fprintf(w, "dry run: %d orphans, %s; %s deletable with --delete\n", len(au.Orphans), humanBytes(au.OrphanBytes), humanBytes(au.DeletableBytes()))
			return nil
		}
		deleted, err := checkpointstorage.DeleteOrphans(ctx, au, a.storage())
		fmt.Fprintf(w, "deleted %d orphans, %s; %d kept\n", len(deleted), humanBytes(au.DeletableBytes()), len(au.Orphans)-len(deleted))
		return err
	})
	return cmd
}

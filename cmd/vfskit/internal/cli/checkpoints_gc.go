package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
)

func (a *app) checkpointsGCCommand() *cobra.Command {
	var retain int
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "gc DIR --retain N",
		Short: "Remove old checkpoints, keeping the newest N completed ones",
		Long: `Keep the newest N completed checkpoints of a job and remove the older ones,
together with the leftovers of failed checkpoints (chk-N directories without
_metadata older than the newest completed checkpoint). Directories newer than
the newest completed checkpoint may be checkpoints in progress and are kept.
Shared state is not touched.

DIR is a job's checkpoint directory (<base>/<job id>) or a base directory, in
which case every job in it is cleaned up. With --dry-run nothing is removed;
the checkpoints that would be are printed.`,
		Example: `  vfskit checkpoints gc file:///tmp/vfskit-demo/<job id> --retain 2
  vfskit checkpoints gc s3://bucket/checkpoints --retain 3 --dry-run`,
		Args: args(cobra.ExactArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			ctx := cmd.Context()
			if retain < 1 {
				return usageErr(fmt.Errorf("--retain must be at least 1, got %d", retain))
			}
			loc, err := resolve(ctx, argv[0])
			if err != nil {
				return err
			}
			rows, err := listCheckpointDirs(ctx, loc)
			if err != nil {
				return err
			}
			doomed := gcPlan(rows, retain)
			verb := "removed"
			if dryRun {
				verb = "would remove"
			}
			for _, r := range doomed {
				if !dryRun {
					if err := checkpointstorage.DiscardCheckpoint(ctx, r.dir); err != nil {
						return err
					}
				}
				state := "completed"
				if !r.completed {
					state = "failed leftover"
				}
				fmt.Fprintf(a.stdio.Out, "%s %s (%s, %s)\n", verb, r.dir, state, humanBytes(r.size))
			}
			kept := -len(doomed)
			for _, r := range rows {
				if !r.savepoint {
					kept++
				}
			}
			if dryRun {
				fmt.Fprintf(a.stdio.Out, "dry run: would remove %d, keep %d\n", len(doomed), kept)
			} else {
				fmt.Fprintf(a.stdio.Out, "removed %d, kept %d\n", len(doomed), kept)
			}
			return nil
		}),
	}
	cmd.Flags().IntVar(&retain, "retain", 0, "number of newest completed checkpoints to keep per job (required, ≥ 1)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print what would be removed without removing it")
	_ = cmd.MarkFlagRequired("retain")
	return cmd
}

// gcPlan picks the checkpoints to remove, per job: all completed ones but the
// newest retain, and incomplete ones older than the newest completed one.
// Savepoints are never removed.
func gcPlan(rows []checkpointRow, retain int) []checkpointRow {
	byJob := map[string][]checkpointRow{}
	var jobs []string
	for _, r := range rows {
		if r.savepoint {
			continue
		}
		if _, ok := byJob[r.job]; !ok {
			jobs = append(jobs, r.job)
		}
		byJob[r.job] = append(byJob[r.job], r) // rows are sorted by id per job
	}
	var doomed []checkpointRow
	for _, job := range jobs {
		rs := byJob[job]
		var completed []int64
		for _, r := range rs {
			if r.completed {
				completed = append(completed, r.idNum)
			}
		}
		if len(completed) == 0 {
			continue // nothing completed: everything may still be in progress
		}
		newest := completed[len(completed)-1]
		keepFrom := int64(-1)
		if len(completed) > retain {
			keepFrom = completed[len(completed)-retain]
		}
		for _, r := range rs {
			switch {
			case r.completed && r.idNum < keepFrom:
				doomed = append(doomed, r)
			case !r.completed && r.idNum < newest:
				doomed = append(doomed, r)
			}
		}
	}
	return doomed
}

package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) checkpointsGCCommand() *cobra.Command {
	var retain int
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "gc DIR --retain N",
		Short: "Remove old checkpoints, keeping the newest N completed ones",
		Long: `Keep the newest N completed checkpoints of a job and remove the older ones,
together with the leftovers of failed checkpoints (chk-N directories without
_metadata older than the newest completed checkpoint). A checkpoint is
completed when its _metadata decodes, vfskit's or Flink's, exactly as
"checkpoints list" shows it. Directories newer than the newest completed
checkpoint may be checkpoints in progress and are kept. Shared state and
savepoints are not touched.

A checkpoint whose _metadata cannot be decoded (corrupted, a newer format, or
written by another program such as Flink) is never removed, and does not count
towards N: it is listed as kept. Removal is confined to the job's directory
(<base>/<job id>): state files that a _metadata names anywhere else (another
bucket or scheme, a local file) are listed as "not removed" and left in place.
If standard output cannot be written, gc stops before the next job.

DIR is a job's checkpoint directory (<base>/<job id>) or a base directory, in
which case every job in it is cleaned up. With --dry-run nothing is removed;
what would be is printed, and so are the references outside the job.`,
		Example: `  vfskit checkpoints gc file:///tmp/vfskit-demo/<job id> --retain 2
  vfskit checkpoints gc s3://bucket/checkpoints --retain 3 --dry-run`,
		Args: args(cobra.ExactArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			ctx := cmd.Context()
			if retain < 1 {
				return usageErr(fmt.Errorf("--retain must be at least 1, got %d", retain))
			}
			loc, err := a.resolve(ctx, argv[0])
			if err != nil {
				return err
			}
			rows, err := a.listCheckpointDirs(ctx, loc)
			if err != nil {
				return err
			}
			opts := []checkpointstorage.Option{a.storage()}
			if dryRun {
				opts = append(opts, checkpointstorage.WithDryRun())
			}
			sum := gcSummary{name: a.name}
			if len(rows) == 1 && rows[0].dir == loc.path {
				rows = nil // DIR is one checkpoint: nothing older to remove
			}
			for _, job := range gcJobs(rows) {
				if err := sum.run(ctx, a.stdio.Out, job, retain, dryRun, opts); err != nil {
					return err
				}
				if err := a.outputFailed(); err != nil {
					return err // no more deleting what cannot be reported
				}
			}
			for _, r := range rows {
				if !r.savepoint {
					sum.kept++
				}
			}
			sum.kept -= sum.removed
			sum.print(a.stdio.Out, dryRun)
			return nil
		}),
	}
	cmd.Flags().IntVar(&retain, "retain", 0, "number of newest completed checkpoints to keep per job (required, ≥ 1)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print what would be removed without removing it")
	_ = cmd.MarkFlagRequired("retain")
	return cmd
}

// gcJob is one job's part of a gc: its directory, its checkpoints as listed, and
// the failed leftovers to remove.
type gcJob struct {
	dir       vfs.Path
	rows      []checkpointRow
	leftovers []checkpointRow
}

// gcJobs groups the checkpoints (not the savepoints) by job directory, keeping
// the jobs that have a checkpoint with _metadata, and picks each job's failed
// leftovers: the checkpoints without _metadata older than the newest completed
// one — whose _metadata decodes, as for list and RetainCheckpoints — (newer
// ones may be in progress). A checkpoint whose _metadata cannot be decoded is
// never a leftover. Which completed checkpoints go is RetainCheckpoints'
// decision.
func gcJobs(rows []checkpointRow) []gcJob {
	var jobs []gcJob
	index := map[vfs.Path]int{}
	for _, r := range rows {
		if r.savepoint {
			continue
		}
		dir := r.dir.Parent()
		i, ok := index[dir]
		if !ok {
			i = len(jobs)
			index[dir] = i
			jobs = append(jobs, gcJob{dir: dir})
		}
		jobs[i].rows = append(jobs[i].rows, r)
	}
	var out []gcJob
	for _, j := range jobs {
		newest, hasMetadata := int64(-1), false
		for _, r := range j.rows {
			hasMetadata = hasMetadata || r.hasMetadata
			if r.decoded {
				newest = max(newest, r.idNum)
			}
		}
		if !hasMetadata {
			continue // nothing completed: everything may still be in progress
		}
		for _, r := range j.rows {
			if !r.hasMetadata && r.idNum < newest {
				j.leftovers = append(j.leftovers, r)
			}
		}
		out = append(out, j)
	}
	return out
}

// gcSummary counts what a gc did, for its last line.
type gcSummary struct {
	removed, kept, undecodable, outside int
	// name quotes names for the output (app.name).
	name func(string) string
}

// run applies RetainCheckpoints to one job, removes its failed leftovers and
// prints a line per checkpoint, in checkpoint order.
func (s *gcSummary) run(ctx context.Context, w io.Writer, job gcJob, retain int, dryRun bool, opts []checkpointstorage.Option) error {
	reports, err := checkpointstorage.RetainCheckpoints(ctx, job.dir, retain, opts...)
	if err != nil {
		return err
	}
	for _, r := range job.leftovers {
		rep, err := checkpointstorage.DiscardCheckpoint(ctx, r.dir, opts...)
		if err != nil && rep.Undecodable == nil {
			return err
		}
		reports = append(reports, rep)
	}
	slices.SortStableFunc(reports, func(x, y checkpointstorage.DiscardReport) int { return cmp.Compare(x.CheckpointID, y.CheckpointID) })
	rows := map[vfs.Path]checkpointRow{}
	for _, r := range job.rows {
		rows[r.dir] = r
	}
	verb := "removed"
	if dryRun {
		verb = "would remove"
	}
	for _, rep := range reports {
		row := rows[rep.Dir]
		if rep.Undecodable != nil {
			s.undecodable++
			why := rep.Undecodable
			var pe *fs.PathError
			if errors.As(why, &pe) {
				why = pe.Err // the line names the directory
			}
			fmt.Fprintf(w, "kept %s (its metadata cannot be decoded: %s)\n", s.name(rep.Dir.Redacted()), quoteName(vfs.Redact(why.Error()), quoteMessage))
			continue
		}
		s.removed++
		state := "completed"
		if !row.hasMetadata {
			state = "failed leftover"
		}
		fmt.Fprintf(w, "%s %s (%s, %s)\n", verb, s.name(rep.Dir.Redacted()), state, humanBytes(row.size))
		for _, p := range rep.Outside {
			s.outside++
			fmt.Fprintln(w, "  not removed, outside the job directory:", s.name(vfs.Redact(fmt.Sprint(p))))
		}
	}
	return nil
}

func (s *gcSummary) print(w io.Writer, dryRun bool) {
	line := fmt.Sprintf("removed %d, kept %d", s.removed, s.kept)
	if dryRun {
		line = fmt.Sprintf("dry run: would remove %d, keep %d", s.removed, s.kept)
	}
	if s.undecodable > 0 {
		line += fmt.Sprintf("; %d kept because their metadata cannot be decoded", s.undecodable)
	}
	if s.outside > 0 {
		line += fmt.Sprintf("; %d referenced files outside the job directory left in place", s.outside)
	}
	fmt.Fprintln(w, line)
}

package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) checkpointsGCCommand() *cobra.Command {
	var retain int
	var dryRun, asJSON bool
	cmd := &cobra.Command{
		Use:   "gc DIR --retain N [--dry-run] [--json]",
		Short: "Remove old checkpoints, keeping the newest N completed ones",
		Long: `Keep the newest N completed checkpoints of a job and remove the older ones,
together with the leftovers of failed checkpoints. A checkpoint is completed
when its _metadata decodes, vfskit's or Flink's, exactly as "checkpoints list"
shows it. A chk-N directory without _metadata is a failed checkpoint's
leftover when N is lower than the newest completed checkpoint's id and every
file in it is older than that checkpoint's _metadata; anything else may be a
checkpoint in progress and is kept ("checkpoints audit" applies the same rule).
Shared state and savepoints are not touched.

A checkpoint whose _metadata cannot be decoded (corrupted, or in a format
version this build does not read; Flink's versions 2 to 7 are read) is never removed, and does not count
towards N: it is listed as kept. A chk-N that is a symbolic link is listed as
kept and never followed. Jobs share state: a checkpoint holding a file that a
checkpoint of another job under the same base directory references (a job
restored from it in CLAIM mode) is kept, and while a job directory under the
base cannot be listed or a _metadata there cannot be decoded every checkpoint
is kept, with the reason; so is a checkpoint holding a file that another
snapshot in the job's directory references (a savepoint-* or any directory
holding a _metadata). Removal is confined to the job's directory
(<base>/<job id>): state files that a _metadata names anywhere else (another
bucket or scheme, a local file) are listed as "not removed" and left in place.
gc deletes only the files it listed, each only as it listed it, and a
directory only once it is empty, never recursively: a file written or
changed in a checkpoint meanwhile stays, and so does a FIFO, device or socket
(never opened); the checkpoint is reported as partly removed, naming those
files, and gc exits with status 1.
If standard output cannot be written, gc stops before the next job.

DIR is a job's checkpoint directory (<base>/<job id>) or a base directory, in
which case every job in it is cleaned up. With --dry-run nothing is removed;
what would be is printed, and so are the references outside the job. A
directory holding no job and no chk-N directory is reported in a sentence
saying what it is instead.

With --json, one JSON document at the end:
  {"dir", "dryRun", "retain",
   "jobs": [{"dir", "checkpoints": [{"path", "id", "size", "action" (removed,
     or kept), "reason" (why kept: retained, undecodable metadata, a link,
     another job's references, ...), "leftover" (a failed checkpoint's
     leftover), "outside" (referenced files outside the job directory, left
     in place), "left" (files written or changed meanwhile, left in place:
     the checkpoint is partly removed), "special" (FIFOs, devices and
     sockets in it, left in place unopened: partly removed too)}]}],
   "removed", "kept"}
With --dry-run, "removed" means would be removed.`,
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
			opts := []checkpointstorage.Option{a.storage()}
			if dryRun {
				opts = append(opts, checkpointstorage.WithDryRun())
			}
			sum := gcSummary{name: a.name}
			doc := gcJSON{Dir: loc.path.Redacted(), DryRun: dryRun, Retain: retain, Jobs: []gcJobJSON{}}
			opts = append(opts, checkpointstorage.WithEachJob(func(job checkpointstorage.JobGC) error {
				if asJSON {
					doc.add(job)
					return nil
				}
				sum.report(a.stdio.Out, job, dryRun)
				return a.outputFailed() // no more deleting what cannot be reported
			}))
			jobs, err := checkpointstorage.CollectGarbage(ctx, loc.path, retain, opts...)
			if asJSON {
				if werr := writeJSONLine(a.stdio.Out, doc); werr != nil && err == nil {
					err = werr
				}
				return cmp.Or(err, partlyRemoved(jobs, `in "left" and "special"`))
			}
			if err != nil {
				return err
			}
			if len(jobs) == 0 {
				_, err := fmt.Fprintln(a.stdio.Out, a.nothingToCollect(ctx, loc))
				return err
			}
			sum.print(a.stdio.Out, dryRun, jobs)
			return partlyRemoved(jobs, "above")
		}),
	}
	cmd.Flags().IntVar(&retain, "retain", 0, "number of newest completed checkpoints to keep per job (required, ≥ 1)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print what would be removed without removing it")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document (schema above)")
	_ = cmd.MarkFlagRequired("retain")
	return cmd
}

// partlyRemoved is gc's error when checkpoints were only partly removed (files
// in them stay, named where), nil otherwise.
func partlyRemoved(jobs []checkpointstorage.JobGC, where string) error {
	n := 0
	for _, j := range jobs {
		for _, r := range j.Reports {
			if r.Removed() && r.Partial() {
				n++
			}
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%s partly removed: the files named %s stay (written or changed after gc listed them, or not regular files)", count(n, "checkpoint"), where)
}

// gcSummary counts what a gc did, for its last line.
type gcSummary struct {
	removed, kept, undecodable, refused, outside int
	// name quotes names for the output (app.name).
	name func(string) string
}

// report prints a line per checkpoint of one job that was removed or kept
// for a reason, in checkpoint order.
func (s *gcSummary) report(w io.Writer, job checkpointstorage.JobGC, dryRun bool) {
	sizes := map[vfs.Path]int64{}
	for _, c := range job.Checkpoints {
		sizes[c.Dir] = c.Bytes
	}
	s.kept += len(job.Checkpoints) - job.Removed()
	verb := "removed"
	if dryRun {
		verb = "would remove"
	}
	for _, rep := range job.Reports {
		switch {
		case rep.Undecodable != nil:
			s.undecodable++
			why := rep.Undecodable
			var pe *fs.PathError
			if errors.As(why, &pe) {
				why = pe.Err // the line names the directory
			}
			fmt.Fprintf(w, "kept %s (its metadata cannot be decoded: %s)\n", s.name(rep.Dir.Redacted()), quoteName(vfs.Redact(why.Error()), quoteMessage))
			continue
		case rep.Kept != "":
			s.refused++
			fmt.Fprintf(w, "kept %s (%s)\n", s.name(rep.Dir.Redacted()), quoteName(vfs.Redact(rep.Kept), quoteMessage))
			continue
		}
		s.removed++
		state := "completed"
		if rep.Leftover {
			state = "failed leftover"
		}
		did := verb
		if rep.Partial() {
			did = "partly removed"
		}
		fmt.Fprintf(w, "%s %s (%s, %s)\n", did, s.name(rep.Dir.Redacted()), state, humanBytes(sizes[rep.Dir]))
		for _, p := range rep.Left {
			fmt.Fprintln(w, "  not removed, written or changed after gc listed it:", s.name(p.Redacted()))
		}
		for _, p := range rep.Special {
			fmt.Fprintln(w, "  not removed, not a regular file (never opened):", s.name(p.Redacted()))
		}
		for _, p := range rep.Outside {
			s.outside++
			fmt.Fprintln(w, "  not removed, outside the job directory:", s.name(vfs.Redact(fmt.Sprint(p))))
		}
	}
}

func (s *gcSummary) print(w io.Writer, dryRun bool, jobs []checkpointstorage.JobGC) {
	chks := 0
	for _, j := range jobs {
		chks += len(j.Checkpoints)
	}
	if chks == 0 {
		fmt.Fprintf(w, "found %s, holding no checkpoint (chk-N): nothing to collect\n", count(len(jobs), "job directory"))
	}
	line := fmt.Sprintf("removed %d, kept %d", s.removed, s.kept)
	if dryRun {
		line = fmt.Sprintf("dry run: would remove %d, keep %d", s.removed, s.kept)
	}
	if s.undecodable > 0 {
		line += fmt.Sprintf("; %d kept because their metadata cannot be decoded", s.undecodable)
	}
	if s.refused > 0 {
		line += fmt.Sprintf("; %d kept for a reason given above (links, other jobs' references)", s.refused)
	}
	if s.outside > 0 {
		line += fmt.Sprintf("; %d referenced files outside the job directory left in place", s.outside)
	}
	fmt.Fprintln(w, line)
}

// gcJSON is checkpoints gc --json (the schema is in its help).
type gcJSON struct {
	Dir     string      `json:"dir"`
	DryRun  bool        `json:"dryRun"`
	Retain  int         `json:"retain"`
	Jobs    []gcJobJSON `json:"jobs"`
	Removed int         `json:"removed"`
	Kept    int         `json:"kept"`
}

// gcJobJSON is one job's part of gcJSON.
type gcJobJSON struct {
	Dir         string             `json:"dir"`
	Checkpoints []gcCheckpointJSON `json:"checkpoints"`
}

// gcCheckpointJSON is what gc did with one checkpoint.
type gcCheckpointJSON struct {
	Path     string   `json:"path"`
	ID       int64    `json:"id"`
	Size     int64    `json:"size"`
	Action   string   `json:"action"`
	Reason   string   `json:"reason,omitempty"`
	Leftover bool     `json:"leftover,omitempty"`
	Outside  []string `json:"outside,omitempty"`
	Left     []string `json:"left,omitempty"`
	Special  []string `json:"special,omitempty"`
}

// add records one job's outcome.
func (d *gcJSON) add(job checkpointstorage.JobGC) {
	reports := map[vfs.Path]checkpointstorage.DiscardReport{}
	for _, r := range job.Reports {
		reports[r.Dir] = r
	}
	j := gcJobJSON{Dir: job.Dir.Redacted(), Checkpoints: []gcCheckpointJSON{}}
	for _, c := range job.Checkpoints {
		cj := gcCheckpointJSON{Path: c.Dir.Redacted(), ID: c.CheckpointID, Size: c.Bytes, Action: "kept", Reason: "retained"}
		if !c.Completed {
			cj.Reason = "may be in progress"
		}
		if r, ok := reports[c.Dir]; ok {
			switch {
			case r.Undecodable != nil:
				cj.Reason = "its metadata cannot be decoded: " + vfs.Redact(r.Undecodable.Error())
			case r.Kept != "":
				cj.Reason = vfs.Redact(r.Kept)
			default:
				cj.Action, cj.Reason, cj.Leftover = "removed", "", r.Leftover
				for _, p := range r.Outside {
					cj.Outside = append(cj.Outside, vfs.Redact(fmt.Sprint(p)))
				}
				for _, p := range r.Left {
					cj.Left = append(cj.Left, p.Redacted())
				}
				for _, p := range r.Special {
					cj.Special = append(cj.Special, p.Redacted())
				}
			}
		}
		if cj.Action == "removed" {
			d.Removed++
		} else {
			d.Kept++
		}
		j.Checkpoints = append(j.Checkpoints, cj)
	}
	d.Jobs = append(d.Jobs, j)
}

// nothingToCollect says why gc found no job at loc: what the directory is
// (checkpointstorage.TakeInventory decides), and what gc takes instead.
func (a *app) nothingToCollect(ctx context.Context, loc location) string {
	dir := a.pathName(loc.path)
	inv, err := checkpointstorage.TakeInventory(ctx, loc.path, a.storage())
	switch {
	case err != nil:
		return fmt.Sprintf("nothing to collect in %s: no job directory (<job id>) and no chk-N directory in it", dir)
	case len(inv.Snapshots) == 1 && inv.Snapshots[0].Dir == inv.Dir:
		return fmt.Sprintf("nothing to collect in %s: it is a checkpoint or savepoint directory; gc takes a job's directory (<base>/<job id>) or a base directory", dir)
	case len(inv.Snapshots) > 0:
		return fmt.Sprintf("nothing to collect in %s: no job directory (<job id>) and no chk-N directory in it, only %s, which gc never removes", dir, count(len(inv.Snapshots), "other checkpoint or savepoint directory"))
	}
	a.reportSkipped("checkpoints gc", inv.Skipped)
	return "nothing to collect: " + noSnapshots(inv)
}

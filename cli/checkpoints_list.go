package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) checkpointsListCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json] DIR",
		Short: "List the checkpoints and savepoints in a directory",
		Long: `List the checkpoints in DIR as a table: id (the one its _metadata records; a
chk-N directory whose _metadata records another is named on standard error),
whether the checkpoint completed,
the format and version of its _metadata, its size and number of files, and
when it was last modified. A checkpoint is completed when its _metadata is
there and decodes, in vfskit's format or Flink's (versions 2 to 7): one that
cannot be decoded is listed as "undecodable", one without _metadata (in
progress or failed) as "no". DIR may be a job's checkpoint directory
(<base>/<job id>), a checkpoint base directory (every job in it is listed, and
the checkpoints and savepoints anywhere in its other subdirectories), a
savepoint directory, or one checkpoint or savepoint directory. A checkpoint or
savepoint directory is one named chk-N or savepoint-*, or any directory holding
a _metadata, whatever its name. Each directory that holds none is named on
standard error with the reason ("skipped DIR: ...").

With --json, one JSON document:
  {"dir": DIR,
   "snapshots": [{"path", "job" (when known), "type" (checkpoint, savepoint or
     unknown), "id" (null when unknown), "completed" (its _metadata decodes),
     "hasMetadata", "error" (why _metadata does not decode), "format" (vfskit
     or flink), "version", "size", "files", "modTime" (RFC 3339, UTC),
     "link" (a symbolic link, not entered)}],
   "skipped": [{"path", "reason"}]}
Paths that are not valid UTF-8 carry a pathBase64 member too.`,
		Example: `  vfskit checkpoints list file:///tmp/vfskit-demo
  vfskit checkpoints list s3://bucket/checkpoints
  vfskit checkpoints list file:///flink/checkpoints/<job id>
  vfskit checkpoints list --json file:///tmp/vfskit-demo`,
		Args: args(cobra.ExactArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			loc, err := a.resolve(cmd.Context(), argv[0])
			if err != nil {
				return err
			}
			inv, rows, err := a.listCheckpointDirs(cmd.Context(), loc)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSONLine(a.stdio.Out, newInventoryJSON(inv, rows))
			}
			a.reportSkipped("checkpoints list", inv.Skipped)
			for _, r := range rows {
				if r.misnamed {
					fmt.Fprintf(a.stdio.Err, "vfskit: checkpoints list: %s is named %s, but its _metadata records checkpoint %s (the ID column shows the recorded id)\n",
						a.pathName(r.dir), r.dir.Name(), r.id)
				}
			}
			if len(rows) == 0 {
				fmt.Fprintln(a.stdio.Err, noSnapshots(inv))
				return nil
			}
			return a.writeCheckpointTable(a.stdio.Out, rows)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document (schema above)")
	return cmd
}

// reportSkipped names on standard error each directory that was looked at and
// is not a checkpoint, savepoint or job directory, with why.
func (a *app) reportSkipped(op string, skipped []checkpointstorage.SkippedDir) {
	for _, s := range skipped {
		fmt.Fprintf(a.stdio.Err, "vfskit: %s: skipped %s: %s\n", op, quoteName(s.Dir.Redacted(), quoteMessage), s.Reason)
	}
}

// noSnapshots is the message for an inventory without snapshots: it tells an
// empty directory from one that holds other things.
func noSnapshots(inv *checkpointstorage.Inventory) string {
	dir := quoteName(inv.Dir.Redacted(), quoteMessage)
	switch {
	case len(inv.Jobs) > 0:
		holds := "its %s hold none yet"
		if len(inv.Jobs) == 1 {
			holds = "its %s holds none yet"
		}
		return fmt.Sprintf("no checkpoints or savepoints in %s: "+holds, dir, count(len(inv.Jobs), "job directory"))
	case len(inv.Skipped) > 0:
		return fmt.Sprintf("no checkpoints or savepoints in %s: not a checkpoint directory (no directory in it holds a _metadata; %s skipped, named above)", dir, count(len(inv.Skipped), "directory"))
	}
	return fmt.Sprintf("no checkpoints or savepoints in %s: it holds no directories", dir)
}

// checkpointRow is one line of "checkpoints list".
type checkpointRow struct {
	job         string // job id, "" when unknown
	id          string // the checkpoint id ("?" for a savepoint with unreadable metadata)
	dir         vfs.Path
	savepoint   bool
	kind        string // "checkpoint", "savepoint" or, for a directory named neither chk-N nor savepoint-*, what its metadata says
	hasMetadata bool   // _metadata there (decoded or not)
	decoded     bool   // _metadata there and decodes
	undecodable bool   // _metadata there but cannot be decoded
	format      string
	version     int
	size        int64
	files       int
	modified    time.Time
	idNum       int64 // N of chk-N (-1 for savepoints)
	snap        checkpointstorage.Snapshot
	// misnamed says that the directory is chk-N and its _metadata records
	// another id (id shows the recorded one).
	misnamed bool
}

// listCheckpointDirs takes the inventory of DIR (see
// checkpointstorage.TakeInventory) and returns a row per checkpoint and
// savepoint.
func (a *app) listCheckpointDirs(ctx context.Context, loc location) (*checkpointstorage.Inventory, []checkpointRow, error) {
	inv, err := checkpointstorage.TakeInventory(ctx, loc.path, a.storage())
	if err != nil {
		return nil, nil, err
	}
	// The job column is for base directories: DIR's own name says the job of
	// a job directory.
	_, isJob := checkpointstorage.ParseJobDirName(inv.Dir.Name())
	oneSnapshot := len(inv.Snapshots) == 1 && inv.Snapshots[0].Dir == inv.Dir
	rows := make([]checkpointRow, 0, len(inv.Snapshots))
	for _, s := range inv.Snapshots {
		if isJob || oneSnapshot {
			s.Job = ""
		}
		r := checkpointRow{job: s.Job, id: "?", dir: s.Dir, savepoint: s.Savepoint, hasMetadata: s.HasMetadata, decoded: s.Completed,
			undecodable: s.Err != nil, size: s.Bytes, files: s.Files, modified: s.ModTime, idNum: -1}
		r.kind = "checkpoint"
		if id, ok := checkpointstorage.ParseCheckpointDirName(s.Dir.Name()); ok && !s.Savepoint {
			r.idNum = id
		} else if s.Savepoint {
			r.kind = "savepoint"
		} else if s.Type != "" {
			r.kind = s.Type // "unknown": a Flink file before version 4 does not say
		}
		if s.CheckpointID >= 0 {
			r.id = fmt.Sprint(s.CheckpointID)
		}
		if s.Completed {
			r.id = fmt.Sprint(s.MetadataCheckpointID)
			if r.idNum >= 0 && r.idNum != s.MetadataCheckpointID {
				r.misnamed = true
			}
		}
		if s.Completed {
			r.format, r.version = s.Format.String(), s.Version
		}
		r.snap = s
		rows = append(rows, r)
	}
	return inv, rows, nil
}

func (a *app) writeCheckpointTable(w io.Writer, rows []checkpointRow) error {
	withJob := false
	for _, r := range rows {
		withJob = withJob || (r.job != "" && !r.savepoint)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if withJob {
		fmt.Fprint(tw, "JOB\t")
	}
	fmt.Fprintln(tw, "TYPE\tID\tCOMPLETED\tFORMAT\tVERSION\tSIZE\tFILES\tMODIFIED\tPATH")
	for _, r := range rows {
		if withJob {
			job := r.job
			if job == "" {
				job = "-"
			}
			fmt.Fprintf(tw, "%s\t", a.name(job))
		}
		completed, format, version := "no", "-", "-"
		switch {
		case r.decoded:
			completed, format, version = "yes", r.format, fmt.Sprint(r.version)
		case r.undecodable:
			completed = "undecodable"
		}
		mod := "-"
		if !r.modified.IsZero() {
			mod = r.modified.UTC().Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.kind, a.name(r.id), completed, format, version, humanBytes(r.size), r.files, mod, a.pathName(r.dir))
	}
	return tw.Flush()
}

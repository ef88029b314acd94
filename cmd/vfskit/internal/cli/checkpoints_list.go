package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) checkpointsListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list DIR",
		Short: "List the checkpoints and savepoints in a directory",
		Long: `List the checkpoints in DIR as a table: id, whether the checkpoint completed
(has its _metadata), its size and number of files, and when it was last
modified. DIR may be a job's checkpoint directory (<base>/<job id>), a
checkpoint base directory (every job in it is listed, and the savepoints in
its subdirectories), a savepoint directory (the savepoint-* directories in it
are listed), or one checkpoint or savepoint directory.`,
		Example: `  vfskit checkpoints list file:///tmp/vfskit-demo
  vfskit checkpoints list s3://bucket/checkpoints`,
		Args: args(cobra.ExactArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			loc, err := resolve(cmd.Context(), argv[0])
			if err != nil {
				return err
			}
			rows, err := listCheckpointDirs(cmd.Context(), loc)
			if err != nil {
				return err
			}
			if len(rows) == 0 {
				fmt.Fprintf(a.stdio.Err, "no checkpoints or savepoints in %s\n", loc.path.Redacted())
				return nil
			}
			return writeCheckpointTable(a.stdio.Out, rows)
		}),
	}
}

// checkpointRow is one line of "checkpoints list".
type checkpointRow struct {
	job       string // job id, "" when DIR is the job's directory
	id        string // the checkpoint id ("?" for a savepoint with unreadable metadata)
	dir       vfs.Path
	savepoint bool
	completed bool
	size      int64
	files     int
	modified  time.Time
	idNum     int64 // N of chk-N (-1 for savepoints)
}

// listCheckpointDirs finds the chk-N directories of DIR, of each job under DIR,
// and DIR's savepoint-* directories, and measures each.
func listCheckpointDirs(ctx context.Context, loc location) ([]checkpointRow, error) {
	st, err := loc.fsys.Stat(ctx, loc.path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir {
		return nil, vfs.NewPathError("checkpoints list", loc.path, fmt.Errorf("%w: expected a checkpoint or savepoint directory", vfs.ErrNotDir))
	}
	// DIR is itself a checkpoint or savepoint: list just it.
	row, isCheckpoint, err := checkpointDirRow(ctx, loc.fsys, loc.path, "")
	if err != nil {
		return nil, err
	}
	if isCheckpoint {
		return []checkpointRow{row}, nil
	}
	// One LIST of DIR serves its own chk-N and savepoint-* directories, its jobs
	// and the savepoint directories one level down (such as <base>/savepoints).
	children, err := loc.fsys.List(ctx, loc.path)
	if err != nil {
		return nil, err
	}
	rows, err := checkpointRows(ctx, loc.fsys, children, "")
	if err != nil {
		return nil, err
	}
	var savepoints []checkpointRow
	for _, c := range children {
		if !c.IsDir {
			continue
		}
		if job, ok := checkpointstorage.ParseJobDirName(c.Name()); ok {
			jobRows, err := jobCheckpointRows(ctx, location{fsys: loc.fsys, path: c.Path}, job.String())
			if err != nil {
				return nil, err
			}
			rows = append(rows, jobRows...)
			continue
		}
		if _, ok := checkpointstorage.ParseCheckpointDirName(c.Name()); ok || strings.HasPrefix(c.Name(), savepointPrefix) {
			continue
		}
		spRows, err := savepointRows(ctx, location{fsys: loc.fsys, path: c.Path})
		if err != nil {
			return nil, err
		}
		savepoints = append(savepoints, spRows...)
	}
	return append(rows, savepoints...), nil
}

// jobCheckpointRows lists the chk-N and savepoint-* directories directly in dir,
// by checkpoint id, savepoints last.
func jobCheckpointRows(ctx context.Context, dir location, job string) ([]checkpointRow, error) {
	entries, err := dir.fsys.List(ctx, dir.path)
	if err != nil {
		return nil, err
	}
	return checkpointRows(ctx, dir.fsys, entries, job)
}

// checkpointRows measures the chk-N and savepoint-* directories among entries
// (a directory's listing) and returns them by checkpoint id, savepoints last.
func checkpointRows(ctx context.Context, fsys vfs.FileSystem, entries []vfs.FileStatus, job string) ([]checkpointRow, error) {
	var rows, savepoints []checkpointRow
	for _, e := range entries {
		if !e.IsDir {
			continue
		}
		row, ok, err := checkpointDirRow(ctx, fsys, e.Path, job)
		switch {
		case err != nil:
			return nil, err
		case !ok:
			continue
		case row.savepoint:
			savepoints = append(savepoints, row)
		default:
			rows = append(rows, row)
		}
	}
	// List sorts by name ("chk-10" before "chk-9"): order by id.
	slices.SortStableFunc(rows, func(x, y checkpointRow) int { return cmp.Compare(x.idNum, y.idNum) })
	return append(rows, savepoints...), nil
}

// checkpointDirRow measures the directory p when it is a checkpoint (chk-N) or
// a savepoint (savepoint-*); ok is false, and nothing is read, for any other
// name. job is the row's job id ("" when unknown); a savepoint's comes from its
// metadata.
func checkpointDirRow(ctx context.Context, fsys vfs.FileSystem, p vfs.Path, job string) (row checkpointRow, ok bool, err error) {
	row = checkpointRow{job: job, dir: p, idNum: -1}
	if id, isChk := checkpointstorage.ParseCheckpointDirName(p.Name()); isChk {
		row.id, row.idNum = fmt.Sprint(id), id
	} else if strings.HasPrefix(p.Name(), savepointPrefix) {
		row.savepoint, row.id = true, "?"
	} else {
		return row, false, nil
	}
	if err := measureDir(ctx, fsys, &row); err != nil {
		return row, false, err
	}
	if row.savepoint && row.completed {
		// The savepoint's id and job are in its metadata; unreadable metadata
		// leaves them unknown ("?").
		if md, _, err := checkpointstorage.LoadCheckpoint(ctx, p.String()); err == nil {
			row.id = fmt.Sprint(md.CheckpointID)
			if md.Format == metadata.FormatVfskit {
				row.job = checkpointstorage.JobID(md.JobID).String()
			}
		}
	}
	return row, true, nil
}

// savepointPrefix starts the name of a savepoint directory.
const savepointPrefix = "savepoint-"

// savepointRows lists the savepoint-* directories directly in dir (and nothing
// else).
func savepointRows(ctx context.Context, dir location) ([]checkpointRow, error) {
	rows, err := jobCheckpointRows(ctx, dir, "")
	if err != nil {
		return nil, err
	}
	var sps []checkpointRow
	for _, r := range rows {
		if r.savepoint {
			sps = append(sps, r)
		}
	}
	return sps, nil
}

// measureDir adds up the files below row.dir, finds the latest modification and
// sets row.completed when it meets row.dir/_metadata (a file), so that telling a
// completed checkpoint from a failed or running one costs no request of its own.
func measureDir(ctx context.Context, fsys vfs.FileSystem, row *checkpointRow) error {
	metadata := row.dir.Join(checkpointstorage.MetadataFileName).Path()
	return vfs.Walk(ctx, fsys, row.dir, func(st vfs.FileStatus, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) { // deleted while we looked
				return fs.SkipDir
			}
			return err
		}
		if st.ModTime.After(row.modified) {
			row.modified = st.ModTime
		}
		if !st.IsDir {
			row.size += st.Size
			row.files++
			row.completed = row.completed || st.Path.Path() == metadata
		}
		return nil
	})
}

func writeCheckpointTable(w io.Writer, rows []checkpointRow) error {
	withJob := false
	for _, r := range rows {
		withJob = withJob || (r.job != "" && !r.savepoint)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if withJob {
		fmt.Fprint(tw, "JOB\t")
	}
	fmt.Fprintln(tw, "TYPE\tID\tCOMPLETED\tSIZE\tFILES\tMODIFIED\tPATH")
	for _, r := range rows {
		if withJob {
			job := r.job
			if job == "" {
				job = "-"
			}
			fmt.Fprintf(tw, "%s\t", job)
		}
		completed := "no"
		if r.completed {
			completed = "yes"
		}
		mod := "-"
		if !r.modified.IsZero() {
			mod = r.modified.UTC().Format(time.DateTime)
		}
		kind := "checkpoint"
		if r.savepoint {
			kind = "savepoint"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", kind, r.id, completed, humanBytes(r.size), r.files, mod, r.dir.Redacted())
	}
	return tw.Flush()
}

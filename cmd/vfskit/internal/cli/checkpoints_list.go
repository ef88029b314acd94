package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) checkpointsListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list DIR",
		Short: "List the checkpoints and savepoints in a directory",
		Long: `List the checkpoints in DIR as a table: id, whether the checkpoint completed
(has its _metadata), its size and number of files, and when it was last
modified. DIR may be a job's checkpoint directory (<base>/<job id>), a
checkpoint base directory (every job in it is listed) or a savepoint
directory (the savepoint-* directories in it are listed).`,
		Example: `  vfskit checkpoints list file:///tmp/vfskit-demo/<job id>
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
				fmt.Fprintf(a.stdio.Err, "no checkpoints or savepoints in %s\n", loc)
				return nil
			}
			return writeCheckpointTable(a.stdio.Out, rows)
		}),
	}
}

// checkpointRow is one line of "checkpoints list".
type checkpointRow struct {
	job       string // job id, "" when DIR is the job's directory
	id        string // N of chk-N, or the savepoint directory's name
	dir       vfs.Path
	completed bool
	size      int64
	files     int
	modified  time.Time
	idNum     int64 // the checkpoint id (-1 for savepoints)
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
	rows, err := jobCheckpointRows(ctx, loc, "")
	if err != nil {
		return nil, err
	}
	jobs, err := checkpointstorage.ListJobs(ctx, loc.path)
	if err != nil {
		return nil, err
	}
	for _, job := range jobs {
		jobRows, err := jobCheckpointRows(ctx, location{fsys: loc.fsys, path: checkpointstorage.JobCheckpointsDir(loc.path, job)}, job.String())
		if err != nil {
			return nil, err
		}
		rows = append(rows, jobRows...)
	}
	return rows, nil
}

// jobCheckpointRows lists the chk-N and savepoint-* directories directly in dir,
// by checkpoint id, savepoints last.
func jobCheckpointRows(ctx context.Context, dir location, job string) ([]checkpointRow, error) {
	completed, err := checkpointstorage.ListCompletedCheckpoints(ctx, dir.path)
	if err != nil {
		return nil, err
	}
	done := map[int64]bool{}
	for _, c := range completed {
		done[c.CheckpointID] = true
	}
	entries, err := dir.fsys.List(ctx, dir.path)
	if err != nil {
		return nil, err
	}
	var rows, savepoints []checkpointRow
	for _, e := range entries {
		if !e.IsDir {
			continue
		}
		row := checkpointRow{job: job, dir: e.Path, idNum: -1}
		if id, ok := checkpointstorage.ParseCheckpointDirName(e.Name()); ok {
			row.id, row.idNum, row.completed = fmt.Sprint(id), id, done[id]
		} else if strings.HasPrefix(e.Name(), "savepoint-") {
			row.id = e.Name()
			ok, err := vfs.Exists(ctx, dir.fsys, e.Path.Join(checkpointstorage.MetadataFileName))
			if err != nil {
				return nil, err
			}
			row.completed = ok
		} else {
			continue
		}
		if err := measureDir(ctx, dir.fsys, &row); err != nil {
			return nil, err
		}
		if row.idNum < 0 {
			savepoints = append(savepoints, row)
		} else {
			rows = append(rows, row)
		}
	}
	// List sorts by name ("chk-10" before "chk-9"): order by id.
	sortRows(rows)
	return append(rows, savepoints...), nil
}

func sortRows(rows []checkpointRow) {
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && rows[j].idNum < rows[j-1].idNum; j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
}

// measureDir adds up the files below row.dir and finds the latest
// modification.
func measureDir(ctx context.Context, fsys vfs.FileSystem, row *checkpointRow) error {
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
		}
		return nil
	})
}

func writeCheckpointTable(w io.Writer, rows []checkpointRow) error {
	withJob := false
	for _, r := range rows {
		withJob = withJob || r.job != ""
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if withJob {
		fmt.Fprint(tw, "JOB\t")
	}
	fmt.Fprintln(tw, "ID\tCOMPLETED\tSIZE\tFILES\tMODIFIED\tPATH")
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", r.id, completed, humanBytes(r.size), r.files, mod, r.dir)
	}
	return tw.Flush()
}

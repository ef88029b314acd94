package cli

import (
	"cmp"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) checkpointsAuditCommand() *cobra.Command {
	var del, dryRun, asJSON bool
	cmd := &cobra.Command{
		Use:   "audit JOBDIR [--map OLD=NEW]... [--delete] [--json]",
		Short: "Find the files of a job that no completed checkpoint references",
		Long: `List everything under a job's checkpoint directory (<base>/<job id>: chk-N,
shared/, taskowned/), read every _metadata, and report the orphans: files that
no completed checkpoint of the job references, with their sizes. Shared state
recorded by absolute paths of the machine that wrote it is recognised with
--map OLD=NEW.

The exit status is 1 when a completed checkpoint references a file that is
missing, of the wrong size or cannot be checked (as for checkpoints verify),
after the report. State files and the snapshots' _metadata files are counted
apart.

Nothing is deleted unless --delete is given (a dry run is the default;
--dry-run, the convention of every command that deletes, reports only, even
beside --delete), and then only the orphans that no completed checkpoint references and that are
older than the newest completed checkpoint, when every _metadata decodes and
every referenced file was found. Nothing outside JOBDIR is ever deleted.
A directory without any checkpoint or savepoint directory is reported in a
sentence saying so (and what it holds), with nothing deleted.

With --json, one JSON document:
  {"jobDir", "files", "bytes" (everything under JOBDIR), "metadataFiles",
   "metadataBytes" (the _metadata files among them), "completed" (completed checkpoints),
   "referenced" (state files they reference), "referencedBytes" (of those here),
   "missing": [{"path", "problem"}] (referenced but missing or of the wrong size),
   "orphans": [{"path", "size", "deletable", "reason" (why kept)}],
   "orphanBytes", "deletableBytes", "dryRun", "deleted": [paths]}`,
		Example: `  vfskit checkpoints audit s3://bucket/checkpoints/<job id>
  vfskit checkpoints audit file:///flink/checkpoints/<job id> --map file:/state/checkpoint=file:///flink/checkpoints --delete`,
		Args: args(cobra.ExactArgs(1)),
	}
	maps := a.mapFlag(cmd)
	cmd.Flags().BoolVar(&del, "delete", false, "delete the deletable orphans (default: only report them)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document (schema above)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "delete nothing, only report (also beside --delete)")
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
		doDelete := del && !dryRun
		missing := au.Missing()
		// missingErr is the exit status's reason: a completed checkpoint
		// that cannot be restored as recorded.
		missingErr := func() error {
			if len(missing) == 0 {
				return nil
			}
			return fmt.Errorf("checkpoints audit: %s: %d of %d referenced files missing, of the wrong size or not checkable", au.JobDir.Redacted(), len(missing), len(au.Referenced))
		}
		if asJSON {
			doc := newAuditJSON(au, completed, !doDelete)
			var err error
			if doDelete {
				var deleted []vfs.Path
				deleted, err = checkpointstorage.DeleteOrphans(ctx, au, a.storage())
				for _, p := range deleted {
					doc.Deleted = append(doc.Deleted, p.Redacted())
				}
			}
			if werr := writeJSONLine(w, doc); werr != nil && err == nil {
				err = werr
			}
			return cmp.Or(err, missingErr())
		}
		if len(au.Snapshots) == 0 {
			_, err := fmt.Fprintln(w, noAuditSnapshots(a.pathName(au.JobDir), au))
			return err
		}
		refs := "reference"
		if completed == 1 {
			refs = "references"
		}
		fmt.Fprintf(w, "%s: %s, %s, and %s, %s; %s %s %s (%s here)\n",
			a.pathName(au.JobDir), count(au.Files-au.MetadataFiles, "state file"), humanBytes(au.Bytes-au.MetadataBytes),
			count(au.MetadataFiles, "_metadata file"), humanBytes(au.MetadataBytes),
			count(completed, "completed checkpoint"), refs, count(len(au.Referenced), "state file"), humanBytes(au.ReferencedBytes))
		for _, m := range missing {
			fmt.Fprintf(w, "referenced but %s: %s\n", m.Problem(), a.pathName(m.Path))
		}
		for _, o := range au.Orphans {
			state := "deletable"
			if !o.Deletable {
				state = "kept: " + o.Reason
			}
			fmt.Fprintf(w, "orphan %s %s (%s)\n", a.pathName(o.Path), humanBytes(o.Size), state)
		}
		if !doDelete {
			fmt.Fprintf(w, "dry run: %s, %s; %s deletable with --delete\n", count(len(au.Orphans), "orphan"), humanBytes(au.OrphanBytes), humanBytes(au.DeletableBytes()))
			return missingErr()
		}
		deleted, err := checkpointstorage.DeleteOrphans(ctx, au, a.storage())
		fmt.Fprintf(w, "deleted %s, %s; %d kept\n", count(len(deleted), "orphan"), humanBytes(au.DeletableBytes()), len(au.Orphans)-len(deleted))
		return cmp.Or(err, missingErr())
	})
	return cmd
}

// auditJSON is checkpoints audit --json (the schema is in its help).
type auditJSON struct {
	JobDir          string            `json:"jobDir"`
	Files           int               `json:"files"`
	Bytes           int64             `json:"bytes"`
	MetadataFiles   int               `json:"metadataFiles"`
	MetadataBytes   int64             `json:"metadataBytes"`
	Completed       int               `json:"completed"`
	Referenced      int               `json:"referenced"`
	ReferencedBytes int64             `json:"referencedBytes"`
	Missing         []auditFileJSON   `json:"missing"`
	Orphans         []auditOrphanJSON `json:"orphans"`
	OrphanBytes     int64             `json:"orphanBytes"`
	DeletableBytes  int64             `json:"deletableBytes"`
	DryRun          bool              `json:"dryRun"`
	Deleted         []string          `json:"deleted"`
}

// auditFileJSON is a referenced file that is missing or of the wrong size.
type auditFileJSON struct {
	Path    string `json:"path"`
	Problem string `json:"problem"`
}

// auditOrphanJSON is a file no completed checkpoint references.
type auditOrphanJSON struct {
	Path      string `json:"path"`
	Size      int64  `json:"size"`
	Deletable bool   `json:"deletable"`
	Reason    string `json:"reason,omitempty"`
}

func newAuditJSON(au *checkpointstorage.Audit, completed int, dryRun bool) auditJSON {
	d := auditJSON{JobDir: au.JobDir.Redacted(), Files: au.Files, Bytes: au.Bytes, MetadataFiles: au.MetadataFiles, MetadataBytes: au.MetadataBytes, Completed: completed, Referenced: len(au.Referenced),
		ReferencedBytes: au.ReferencedBytes, Missing: []auditFileJSON{}, Orphans: []auditOrphanJSON{}, OrphanBytes: au.OrphanBytes,
		DeletableBytes: au.DeletableBytes(), DryRun: dryRun, Deleted: []string{}}
	for _, m := range au.Missing() {
		d.Missing = append(d.Missing, auditFileJSON{Path: m.Path.Redacted(), Problem: m.Problem()})
	}
	for _, o := range au.Orphans {
		oj := auditOrphanJSON{Path: o.Path.Redacted(), Size: o.Size, Deletable: o.Deletable}
		if !o.Deletable {
			oj.Reason = vfs.Redact(o.Reason)
		}
		d.Orphans = append(d.Orphans, oj)
	}
	return d
}

// noAuditSnapshots is audit's report on a directory in which it found no
// checkpoint or savepoint directory: what it holds instead, and that
// nothing of it is deleted.
func noAuditSnapshots(dir string, au *checkpointstorage.Audit) string {
	if au.Files == 0 {
		return fmt.Sprintf("nothing to audit in %s: it holds no files and no checkpoint or savepoint directory (chk-N, savepoint-*, or any directory holding a _metadata)", dir)
	}
	return fmt.Sprintf("no checkpoint or savepoint directory in %s (chk-N, savepoint-*, or any directory holding a _metadata): not a job's checkpoints directory, or a job that has written none yet; nothing is an orphan without a completed checkpoint, so all is kept: %s, %s",
		dir, count(au.Files, "file"), humanBytes(au.Bytes))
}

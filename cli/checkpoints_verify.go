package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

// mapFlag adds the repeatable --map OLD=NEW flag to cmd and returns a function
// that parses what was given into options (with the command line's registry).
func (a *app) mapFlag(cmd *cobra.Command) func() ([]checkpointstorage.Option, error) {
	var maps []string
	cmd.Flags().StringArrayVar(&maps, "map", nil, "look for files recorded under OLD under NEW instead (OLD=NEW, repeatable), e.g. file:/state/checkpoint=s3://bucket/checkpoints")
	return func() ([]checkpointstorage.Option, error) {
		var ms []checkpointstorage.PathMapping
		for _, s := range maps {
			m, err := checkpointstorage.ParsePathMapping(s)
			if err != nil {
				return nil, usageErr(fmt.Errorf("--map: %w", err))
			}
			ms = append(ms, m)
		}
		return []checkpointstorage.Option{a.storage(), checkpointstorage.WithPathMapping(ms...)}, nil
	}
}

func (a *app) checkpointsVerifyCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify [--json] PATH [--map OLD=NEW]...",
		Short: "Check that every file a checkpoint or savepoint references is there",
		Long: `Read the _metadata of a checkpoint or savepoint (vfskit's or Flink's) and check
that every file it references is present with its recorded size: relative
references inside the checkpoint directory, absolute ones where they are
recorded, or where --map says they are now. Each directory is listed once (no
request per file on S3).

Prints one line per file that is missing, has the wrong size or cannot be
checked (a scheme that is not registered, such as hdfs:), and exits with
status 1 when there is any.

PATH is a checkpoint or savepoint directory or its _metadata file; a job's
directory or a base directory verifies every checkpoint and savepoint in it
(any directory holding a _metadata, whatever its name and however deep; one
that cannot be decoded fails), and names on standard error what it skipped and
why (a chk-N without _metadata is in progress or failed).

With --json, one JSON document:
  {"path": PATH,
   "ok": true when every checkpoint verified,
   "results": [{"path", "ok", "format", "version", "checkpointId", "files"
     (how many referenced files were checked), "problems": [{"path",
     "problem", "recorded" (as the _metadata records it, when mapped)}],
     "error" (why it could not be verified, such as an undecodable
     _metadata)}],
   "skipped": [{"path", "reason"}]}`,
		Example: `  vfskit checkpoints verify file:///flink/savepoints/savepoint-3f2a1b-0123456789ab
  vfskit checkpoints verify --json file:///tmp/vfskit-demo
  vfskit checkpoints verify s3://bucket/checkpoints/<job id>/chk-9 --map file:/state/checkpoint=s3://bucket/checkpoints`,
		Args: args(cobra.ExactArgs(1)),
	}
	maps := a.mapFlag(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document (schema above)")
	cmd.RunE = a.run(func(cmd *cobra.Command, argv []string) error {
		opts, err := maps()
		if err != nil {
			return err
		}
		loc, err := a.resolve(cmd.Context(), argv[0])
		if err != nil {
			return err
		}
		doc := verifyJSON{Path: loc.path.Redacted(), Results: []verifyResultJSON{}, Skipped: []skippedJSON{}}
		v, err := checkpointstorage.VerifyCheckpoint(cmd.Context(), loc.path, opts...)
		if errors.Is(err, fs.ErrNotExist) {
			if ok, all := a.verifyAll(cmd.Context(), a.stdio.Out, loc.path, opts, asJSON, &doc); ok {
				return all
			}
		}
		if err != nil {
			return notSnapshotDir(cmd.Context(), "checkpoints verify", loc, err)
		}
		if asJSON {
			doc.Results = append(doc.Results, newVerifyResultJSON(v, nil))
			doc.OK = v.OK()
			if err := writeJSONLine(a.stdio.Out, doc); err != nil || doc.OK {
				return err
			}
			return fmt.Errorf("checkpoints verify: %s: %d of %s missing, of the wrong size or not checkable", v.MetadataPath.Redacted(), len(v.Problems()), count(len(v.Files), "referenced file"))
		}
		return a.writeVerification(a.stdio.Out, v)
	})
	return cmd
}

// verifyAll verifies every checkpoint and savepoint with a _metadata in dir
// (a job's or a base directory); ok is false when dir holds none, and then
// nothing was printed. With asJSON the results go into doc, which is
// written at the end.
func (a *app) verifyAll(ctx context.Context, w io.Writer, dir vfs.Path, opts []checkpointstorage.Option, asJSON bool, doc *verifyJSON) (ok bool, err error) {
	inv, err := checkpointstorage.TakeInventory(ctx, dir, opts...)
	if err != nil {
		return false, nil
	}
	skipped := inv.Skipped
	var failed []string
	for _, s := range inv.Snapshots {
		switch {
		case s.Link:
			skipped = append(skipped, checkpointstorage.SkippedDir{Dir: s.Dir, Reason: checkpointstorage.SkipLink})
			continue
		case !s.HasMetadata:
			skipped = append(skipped, checkpointstorage.SkippedDir{Dir: s.Dir, Reason: "no _metadata: in progress, failed or abandoned"})
			continue
		}
		ok = true
		err := s.Err
		var v *checkpointstorage.Verification
		if err == nil {
			v, err = checkpointstorage.VerifyCheckpoint(ctx, s.Dir, opts...)
		}
		if asJSON {
			r := newVerifyResultJSON(v, err)
			if v == nil {
				r.Path = s.Dir.Redacted()
			}
			doc.Results = append(doc.Results, r)
			if !r.OK {
				failed = append(failed, s.Dir.Name())
			}
			continue
		}
		if err == nil {
			err = a.writeVerification(w, v)
		}
		if err == nil {
			continue
		}
		if outputFailure(err) == nil {
			_, err = fmt.Fprintln(w, "FAILED: "+quoteName(vfs.Redact(err.Error()), quoteMessage))
			failed = append(failed, s.Dir.Name())
		}
		if outputFailure(err) != nil { // nothing more can be shown
			return ok, err
		}
	}
	if !ok {
		return false, nil
	}
	if asJSON {
		doc.Skipped, doc.OK = newSkippedJSON(skipped), len(failed) == 0
		if err := writeJSONLine(w, doc); err != nil {
			return ok, err
		}
	} else {
		a.reportSkipped("checkpoints verify", skipped)
	}
	if len(failed) > 0 {
		return ok, fmt.Errorf("checkpoints verify: %s: %d of the checkpoints and savepoints in it do not verify: %s", dir.Redacted(), len(failed), strings.Join(failed, ", "))
	}
	return ok, nil
}

// writeVerification prints a line per problem and a summary, and returns an
// error (exit status 1) when there is a problem.
func (a *app) writeVerification(w io.Writer, v *checkpointstorage.Verification) error {
	problems := v.Problems()
	for _, p := range problems {
		line := fmt.Sprintf("%s: %s", p.Problem(), a.pathName(p.Path))
		if p.Mapped { // looked for elsewhere than the metadata says
			line += " (recorded as " + a.name(vfs.Redact(p.Recorded)) + ")"
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("checkpoints verify: %s: %d of %s missing, of the wrong size or not checkable", v.MetadataPath.Redacted(), len(problems), count(len(v.Files), "referenced file"))
	}
	_, err := fmt.Fprintf(w, "OK: %s (%s version %d, checkpoint %d): all %s present with their recorded sizes\n",
		a.pathName(v.Dir), v.Metadata.Format, v.Metadata.Version, v.Metadata.CheckpointID, count(len(v.Files), "referenced file"))
	return err
}

// verifyJSON is checkpoints verify --json (the schema is in its help).
type verifyJSON struct {
	Path    string             `json:"path"`
	OK      bool               `json:"ok"`
	Results []verifyResultJSON `json:"results"`
	Skipped []skippedJSON      `json:"skipped"`
}

// verifyResultJSON is one checkpoint's verification.
type verifyResultJSON struct {
	Path         string              `json:"path"`
	OK           bool                `json:"ok"`
	Format       string              `json:"format,omitempty"`
	Version      int                 `json:"version,omitempty"`
	CheckpointID int64               `json:"checkpointId"`
	Files        int                 `json:"files"`
	Problems     []verifyProblemJSON `json:"problems"`
	Error        string              `json:"error,omitempty"`
}

// verifyProblemJSON is one referenced file that did not verify.
type verifyProblemJSON struct {
	Path     string `json:"path"`
	Problem  string `json:"problem"`
	Recorded string `json:"recorded,omitempty"`
}

// newVerifyResultJSON returns v (nil when err says why there is none) in
// JSON form.
func newVerifyResultJSON(v *checkpointstorage.Verification, err error) verifyResultJSON {
	r := verifyResultJSON{Problems: []verifyProblemJSON{}, CheckpointID: -1}
	if err != nil {
		r.Error = vfs.Redact(err.Error())
		return r
	}
	r.Path, r.Files = v.Dir.Redacted(), len(v.Files)
	r.Format, r.Version, r.CheckpointID = v.Metadata.Format.String(), v.Metadata.Version, v.Metadata.CheckpointID
	for _, p := range v.Problems() {
		pj := verifyProblemJSON{Path: p.Path.Redacted(), Problem: p.Problem()}
		if p.Mapped {
			pj.Recorded = vfs.Redact(p.Recorded)
		}
		r.Problems = append(r.Problems, pj)
	}
	r.OK = len(r.Problems) == 0
	return r
}

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
	cmd := &cobra.Command{
		Use:   "verify PATH [--map OLD=NEW]...",
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
that has a _metadata (one that cannot be decoded fails).`,
		Example: `  vfskit checkpoints verify file:///flink/savepoints/savepoint-3f2a1b-0123456789ab
  vfskit checkpoints verify s3://bucket/checkpoints/<job id>/chk-29 --map file:/state/checkpoint=s3://bucket/checkpoints`,
		Args: args(cobra.ExactArgs(1)),
	}
	maps := a.mapFlag(cmd)
	cmd.RunE = a.run(func(cmd *cobra.Command, argv []string) error {
		opts, err := maps()
		if err != nil {
			return err
		}
		loc, err := a.resolve(cmd.Context(), argv[0])
		if err != nil {
			return err
		}
		v, err := checkpointstorage.VerifyCheckpoint(cmd.Context(), loc.path, opts...)
		if errors.Is(err, fs.ErrNotExist) {
			if ok, all := a.verifyAll(cmd.Context(), a.stdio.Out, loc.path, opts); ok {
				return all
			}
		}
		if err != nil {
			return err
		}
		return a.writeVerification(a.stdio.Out, v)
	})
	return cmd
}

// verifyAll verifies every checkpoint and savepoint with a _metadata in dir
// (a job's or a base directory); ok is false when dir holds none, and then
// nothing was printed.
func (a *app) verifyAll(ctx context.Context, w io.Writer, dir vfs.Path, opts []checkpointstorage.Option) (ok bool, err error) {
	inv, err := checkpointstorage.TakeInventory(ctx, dir, opts...)
	if err != nil {
		return false, nil
	}
	var failed []string
	for _, s := range inv.Snapshots {
		if !s.HasMetadata {
			continue
		}
		ok = true
		err := s.Err
		if err == nil {
			var v *checkpointstorage.Verification
			if v, err = checkpointstorage.VerifyCheckpoint(ctx, s.Dir, opts...); err == nil {
				err = a.writeVerification(w, v)
			}
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
		return fmt.Errorf("checkpoints verify: %s: %d of %d referenced files missing, of the wrong size or not checkable", v.MetadataPath.Redacted(), len(problems), len(v.Files))
	}
	_, err := fmt.Fprintf(w, "OK: %s (%s version %d, checkpoint %d): all %d referenced files present with their recorded sizes\n",
		a.pathName(v.Dir), v.Metadata.Format, v.Metadata.Version, v.Metadata.CheckpointID, len(v.Files))
	return err
}

package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
)

// mapFlag adds the repeatable --map OLD=NEW flag to cmd and returns a function
// that parses what was given into options.
func mapFlag(cmd *cobra.Command) func() ([]checkpointstorage.Option, error) {
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
		return []checkpointstorage.Option{checkpointstorage.WithPathMapping(ms...)}, nil
	}
}

func (a *app) checkpointsVerifyCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "verify POINTER [--map OLD=NEW]...",
		Short: "Check that every file a checkpoint or savepoint references is there",
		Long: `Read the _metadata of a checkpoint or savepoint (vfskit's or Flink's) and check
that every file it references is present with its recorded size: relative
references inside the checkpoint directory, absolute ones where they are
recorded, or where --map says they are now. Each directory is listed once (no
request per file on S3).

Prints one line per file that is missing, has the wrong size or cannot be
checked (a scheme that is not registered, such as hdfs:), and exits with
status 1 when there is any.`,
		Example: `  vfskit checkpoints verify file:///flink/savepoints/savepoint-3f2a1b-0123456789ab
  vfskit checkpoints verify s3://bucket/checkpoints/<job id>/chk-29 --map file:/state/checkpoint=s3://bucket/checkpoints`,
		Args: args(cobra.ExactArgs(1)),
	}
	maps := mapFlag(cmd)
	cmd.RunE = a.run(func(cmd *cobra.Command, argv []string) error {
		opts, err := maps()
		if err != nil {
			return err
		}
		loc, err := resolve(cmd.Context(), argv[0])
		if err != nil {
			return err
		}
		v, err := checkpointstorage.VerifyCheckpoint(cmd.Context(), loc.path, opts...)
		if err != nil {
			return err
		}
		return writeVerification(a.stdio.Out, v)
	})
	return cmd
}

// writeVerification prints a line per problem and a summary, and returns an
// error (exit status 1) when there is a problem.
func writeVerification(w io.Writer, v *checkpointstorage.Verification) error {
	problems := v.Problems()
	for _, p := range problems {
		line := fmt.Sprintf("%s: %s", p.Problem(), p.Path.Redacted())
		if p.Mapped || p.Path.String() != p.Recorded && p.Reference == "absolute" {
			line += " (recorded as " + p.Recorded + ")"
		}
		fmt.Fprintln(w, line)
	}
	if len(problems) > 0 {
		return fmt.Errorf("checkpoints verify: %s: %d of %d referenced files missing, of the wrong size or not checkable", v.MetadataPath.Redacted(), len(problems), len(v.Files))
	}
	fmt.Fprintf(w, "OK: %s (%s version %d, checkpoint %d): all %d referenced files present with their recorded sizes\n",
		v.Dir.Redacted(), v.Metadata.Format, v.Metadata.Version, v.Metadata.CheckpointID, len(v.Files))
	return nil
}

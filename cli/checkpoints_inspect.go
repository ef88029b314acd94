package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) checkpointsInspectCommand() *cobra.Command {
	var asJSON, verify bool
	cmd := &cobra.Command{
		Use:   "inspect POINTER",
		Short: "Show what a checkpoint or savepoint contains",
		Long: `Read a checkpoint's or savepoint's metadata and show it: its format (vfskit's
own, or Flink's versions 2 to 7), the checkpoint id, for vfskit's format the job
and when it was taken, for Flink's whether it is a checkpoint or a savepoint
(canonical or native, from version 4 on), and per operator (id, uid and name
where recorded, parallelism) and subtask every state handle with its kind
(inline: bytes inside the metadata; file: a file at an absolute path; relative:
a file inside the checkpoint directory; or Flink's handle class) and size,
with the operator's state names, how many subtasks hold keyed state and whether
it has coordinator state; then every referenced file once, with its size, and
the bytes held inline in the metadata.

With --json it prints one JSON object: path, format, version, checkpointId,
type, savepoint (true for a savepoint), savepointFormat, operators (id, uid, name, parallelism, maxParallelism,
subtaskStates, coordinatorState, operatorStateNames, keyedSubtasks, and the
subtasks' handles), handleCounts (per Flink handle class), files (every
referenced file: path, reference "relative" or "absolute", size, present: null
unless --verify checks it) and inlineBytes, plus pointer, metadataPath,
metadataSize, jobId, timestamp and stateSize. A path or name that is not valid
UTF-8 also comes as the same member plus Base64 (pathBase64, ...): its exact
bytes in base64.

With --verify it also checks every referenced file, as "checkpoints verify"
does (one listing per directory; --map OLD=NEW looks for files recorded under
OLD under NEW): in JSON each file's "present" is true or false, and "problem"
says what is wrong; in text a line per problem follows. Any missing or
wrong-sized file makes the exit status 1.

POINTER is a checkpoint or savepoint directory (chk-N, savepoint-...) or its
_metadata file, on any file system, or a job's checkpoint directory
(<base>/<job id>): then its newest completed checkpoint is shown, after a line
saying which (on standard error with --json). Corrupted or truncated metadata is
reported as an error (exit status 1). The output is written as it is produced,
one subtask at a time: memory stays a small multiple of the _metadata file's size.`,
		Example: `  vfskit checkpoints inspect file:///tmp/vfskit-demo/<job id>/chk-9
  vfskit checkpoints inspect --json s3://bucket/savepoints/savepoint-3f2a1b-0123456789ab
  vfskit checkpoints inspect --verify --map file:/state/checkpoint=file:///backup/checkpoints file:///backup/checkpoints/<job id>/chk-7`,
		Args: args(cobra.ExactArgs(1)),
	}
	maps := a.mapFlag(cmd)
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
		md, completed, err := checkpointstorage.LoadCheckpoint(ctx, loc.path.String(), a.storage())
		var newest string // set when POINTER is a job's directory
		if errors.Is(err, fs.ErrNotExist) {
			if latest, lerr := checkpointstorage.LatestCompletedCheckpoint(ctx, loc.path, a.storage()); lerr == nil {
				newest = fmt.Sprintf("%s is a job's directory: its newest completed checkpoint, %s:", a.pathName(loc.path), a.pathName(latest.Dir))
				md, completed, err = checkpointstorage.LoadCheckpoint(ctx, latest.Dir.String(), a.storage())
			}
		}
		if err != nil {
			return notSnapshotDir(ctx, "checkpoints inspect", loc, err)
		}
		if newest != "" {
			if asJSON {
				fmt.Fprintln(a.stdio.Err, "vfskit: checkpoints inspect: "+newest)
			} else {
				fmt.Fprintln(a.stdio.Out, newest)
			}
		}
		doc := newInspectDoc(md, completed)
		var checked *checkpointstorage.Verification
		if verify {
			if checked, err = checkpointstorage.VerifyMetadata(ctx, completed, md, opts...); err != nil {
				return err
			}
			doc.markPresence(checked)
		}
		if asJSON {
			if err := doc.writeJSON(a.stdio.Out); err != nil {
				return err
			}
			if checked != nil && !checked.OK() {
				return fmt.Errorf("checkpoints inspect: %s: %d of %d referenced files missing, of the wrong size or not checkable", checked.MetadataPath.Redacted(), len(checked.Problems()), len(checked.Files))
			}
			return nil
		}
		if err := doc.writeText(a.stdio.Out, a.name); err != nil || checked == nil {
			return err
		}
		fmt.Fprintln(a.stdio.Out)
		return a.writeVerification(a.stdio.Out, checked)
	})
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the metadata as JSON")
	cmd.Flags().BoolVar(&verify, "verify", false, "also check that every referenced file is present with its recorded size (exit status 1 if not)")
	return cmd
}

// notSnapshotDir puts err, a failure to find a checkpoint at loc, in plain
// words when loc is a directory without a _metadata; other errors are
// returned as they are.
func notSnapshotDir(ctx context.Context, op string, loc location, err error) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if st, serr := loc.fsys.Stat(ctx, loc.path); serr != nil || !st.IsDir {
		return err
	}
	if _, chk := checkpointstorage.ParseCheckpointDirName(loc.path.Name()); chk || strings.HasPrefix(loc.path.Name(), checkpointstorage.SavepointDirPrefix) {
		return vfs.NewPathError(op, loc.path, notFound("it holds no _metadata: a checkpoint or savepoint in progress, failed or abandoned"))
	}
	return vfs.NewPathError(op, loc.path, notFound(fmt.Sprintf("not a checkpoint or savepoint directory: it holds no _metadata, nor does any directory in it (checkpoints list %s shows what it holds)", loc.path.Redacted())))
}

// notFound is a message saying what is missing: it is fs.ErrNotExist to
// errors.Is without the words "file does not exist".
type notFound string

func (e notFound) Error() string { return string(e) }
func (e notFound) Unwrap() error { return fs.ErrNotExist }

package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
)

func (a *app) checkpointsRelocateCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "relocate SRC DST [--map OLD=NEW]...",
		Short: "Move a savepoint, a checkpoint or a whole job directory to another place",
		Long: `Copy a savepoint, a checkpoint, or a job's whole checkpoint directory (its
chk-N directories with shared/ and taskowned/) from SRC to DST, on any
schemes, so that it restores from DST: absolute references into SRC (or, with
--map, into what the mapping sends into SRC) are rewritten to DST, each
_metadata is written last in the format and version it was read in, and DST is
verified at the end. SRC is left as it is; DST must not exist or be empty.

References to files outside SRC that no --map covers are refused before
anything is copied: they are listed, and the exit status is 1.`,
		Example: `  vfskit checkpoints relocate file:///flink/savepoints/savepoint-3f2a1b-0123456789ab s3://bucket/restored/savepoint-3f2a1b-0123456789ab
  vfskit checkpoints relocate file:///old/<job id> s3://bucket/moved/<job id> --map file:/state/checkpoint=file:///old`,
		Args: args(cobra.ExactArgs(2)),
	}
	maps := a.mapFlag(cmd)
	cmd.RunE = a.run(func(cmd *cobra.Command, argv []string) error {
		ctx := cmd.Context()
		opts, err := maps()
		if err != nil {
			return err
		}
		locs, err := a.resolveAll(ctx, argv)
		if err != nil {
			return err
		}
		r, err := checkpointstorage.Relocate(ctx, locs[0].path, locs[1].path, opts...)
		if err != nil {
			return err
		}
		w := a.stdio.Out
		fmt.Fprintf(w, "copied %d files, %s, from %s to %s; %d references rewritten\n",
			r.Files, humanBytes(r.Bytes), a.pathName(r.Src), a.pathName(r.Dst), r.Rewritten)
		for _, v := range r.Verifications {
			if err := a.writeVerification(w, v); err != nil {
				return err
			}
		}
		return nil
	})
	return cmd
}

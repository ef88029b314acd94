package cli

import (
	"github.com/spf13/cobra"
)

func (a *app) checkpointsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "checkpoints",
		Short: "List, inspect and clean up checkpoints and savepoints",
		Long: `Work with the checkpoints written by vfskit's checkpoint storage (the Go port
of Apache Flink's), on any file system. The layout is Flink's:

  <base>/<job id>/chk-<N>/_metadata     a completed checkpoint
  <base>/<job id>/shared/               state shared between checkpoints
  <base>/<job id>/taskowned/            state owned by the tasks
  <savepoint dir>/savepoint-<job>-<id>/_metadata`,
		Args: args(cobra.NoArgs),
		RunE: a.run(func(cmd *cobra.Command, _ []string) error { return cmd.Help() }),
	}
	cmd.AddCommand(a.checkpointsListCommand(), a.checkpointsInspectCommand(), a.checkpointsGCCommand(),
		a.checkpointsVerifyCommand(), a.checkpointsAuditCommand(), a.checkpointsRelocateCommand(),
		a.checkpointsStateCommand(), a.checkpointsOffsetsCommand(), a.checkpointsSetOffsetsCommand())
	return cmd
}

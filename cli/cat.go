package cli

import (
	"io"

	"github.com/spf13/cobra"
)

func (a *app) catCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "cat URI...",
		Short: "Write files to standard output",
		Long: `Stream the contents of one or more files, in order, to standard output.
"-" is standard input (for a local file named "-", write ./-). Pipes and FIFOs
(/dev/stdin too) are streamed. A file that cannot be read is reported and
skipped; the exit status is then 1.`,
		Example: `  vfskit cat s3://bucket/config.json
  vfskit cat ./notes.txt s3://bucket/config.json
  echo header | vfskit cat - s3://bucket/body.txt`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			return a.forEachStdio(cmd.Context(), argv, func(loc location) error { return a.cat(cmd, loc) })
		}),
	}
}

// cat copies the file at loc, or standard input for "-", to standard output.
func (a *app) cat(cmd *cobra.Command, loc location) error {
	if loc.isStdio() {
		_, err := io.Copy(a.stdio.Out, a.stdin(cmd.Context()))
		return err
	}
	in, err := loc.fsys.Open(cmd.Context(), loc.path)
	if err != nil {
		return err
	}
	defer in.Close()
	_, err = io.Copy(a.stdio.Out, in)
	return err
}

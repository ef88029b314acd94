package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/vfskit/vfskit/vfs"
)

func (a *app) statCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "stat URI",
		Short: "Show the status of a file or directory",
		Long: `Show the path, type, size and modification time of a file or directory,
and the file system that serves it (its URI and kind: FileSystem or ObjectStore).
User info in a URI is shown as xxxxx.`,
		Example: `  vfskit stat s3://bucket/data/part-0
  vfskit stat memory://demo/checkpoints`,
		Args: args(cobra.ExactArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			loc, err := resolve(cmd.Context(), argv[0])
			if err != nil {
				return err
			}
			st, err := loc.fsys.Stat(cmd.Context(), loc.path)
			if err != nil {
				return err
			}
			mod := "-"
			if !st.ModTime.IsZero() {
				mod = st.ModTime.UTC().Format(time.RFC3339)
			}
			w := a.stdio.Out
			fmt.Fprintf(w, "Path:        %s\n", st.Path.Redacted())
			fmt.Fprintf(w, "Type:        %s\n", kindOf(st))
			fmt.Fprintf(w, "Size:        %d (%s)\n", st.Size, humanBytes(st.Size))
			fmt.Fprintf(w, "Modified:    %s\n", mod)
			_, err = fmt.Fprintf(w, "File system: %s (%s)\n", vfs.RedactURL(loc.fsys.URI()), loc.fsys.Kind())
			return err
		}),
	}
}

// humanBytes formats n bytes with binary units: "512 B", "1.5 KiB", "20.0 MiB".
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

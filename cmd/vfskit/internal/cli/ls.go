package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) lsCommand() *cobra.Command {
	var long, recursive, follow bool
	cmd := &cobra.Command{
		Use:   "ls [-l] [-R [-L]] URI",
		Short: "List a directory (or show a file) on any file system",
		Long: `List the entries of a directory, sorted by name; directories end in "/".
A file lists itself. With -R, everything below the directory is listed, one
path per line relative to URI; symbolic links are listed but not descended
into unless -L is given (a link back to a directory being listed is reported
and skipped, and the exit status is 1). With -l, each line also shows the type
(d, - or l for a symbolic link), the size in bytes and the modification time
(UTC).`,
		Example: `  vfskit ls s3://bucket/data
  vfskit ls -lR file:///tmp/checkpoints
  vfskit ls .`,
		Args: args(cobra.ExactArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			loc, err := resolve(cmd.Context(), argv[0])
			if err != nil {
				return err
			}
			return a.ls(cmd, loc, long, recursive, follow)
		}),
	}
	cmd.Flags().BoolVarP(&long, "long", "l", false, "show type, size and modification time")
	cmd.Flags().BoolVarP(&recursive, "recursive", "R", false, "list everything below the directory")
	cmd.Flags().BoolVarP(&follow, "dereference", "L", false, "with -R, descend into directories that symbolic links point to (loops are reported, not followed)")
	return cmd
}

func (a *app) ls(cmd *cobra.Command, loc location, long, recursive, follow bool) error {
	ctx := cmd.Context()
	tw := &longTable{}
	print := func(st vfs.FileStatus, name string) {
		if st.IsDir && !st.Symlink {
			name += "/"
		}
		tw.add(st, name)
	}
	flush := func() error {
		if long {
			return tw.writeLong(a.stdio.Out)
		}
		return tw.writeNames(a.stdio.Out)
	}
	if !recursive {
		entries, err := loc.fsys.List(ctx, loc.path)
		if err != nil {
			return err
		}
		for _, st := range entries {
			print(st, st.Name())
		}
		return flush()
	}
	root := loc.path.Path()
	var loops []error
	err := vfs.WalkWith(ctx, loc.fsys, loc.path, vfs.WalkOptions{FollowLinks: follow}, func(st vfs.FileStatus, err error) error {
		if errors.Is(err, vfs.ErrLinkLoop) {
			loops = append(loops, err)
			return nil
		}
		if err != nil {
			return err
		}
		rel := relativePath(root, st.Path.Path())
		if rel == "" {
			if !st.IsDir { // a file lists itself
				print(st, st.Name())
			}
			return nil
		}
		print(st, rel)
		return nil
	})
	if ferr := flush(); err == nil {
		err = ferr
	}
	return errors.Join(append(loops, err)...)
}

// longTable collects listing lines so that "ls -l" can align its columns.
type longTable struct {
	rows  []vfs.FileStatus
	names []string
}

func (t *longTable) add(st vfs.FileStatus, name string) {
	t.rows = append(t.rows, st)
	t.names = append(t.names, name)
}

// writeNames writes one name per line.
func (t *longTable) writeNames(w io.Writer) error {
	for _, n := range t.names {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}

// writeLong writes "ls -l" lines: type, size (right-aligned), modification time
// in UTC, name.
func (t *longTable) writeLong(w io.Writer) error {
	width := 1
	for _, st := range t.rows {
		width = max(width, len(fmt.Sprint(st.Size)))
	}
	for i, st := range t.rows {
		kind := "-"
		switch {
		case st.Symlink:
			kind = "l"
		case st.IsDir:
			kind = "d"
		}
		mod := "-                  "
		if !st.ModTime.IsZero() {
			mod = st.ModTime.UTC().Format(time.DateTime)
		}
		if _, err := fmt.Fprintf(w, "%s %*d %s %s\n", kind, width, st.Size, mod, t.names[i]); err != nil {
			return err
		}
	}
	return nil
}

// relativePath returns p relative to the directory root ("" for root itself),
// both '/'-separated path parts.
func relativePath(root, p string) string {
	if p == root {
		return ""
	}
	prefix := strings.TrimSuffix(root, "/") + "/"
	return strings.TrimPrefix(p, prefix)
}

// kindOf names what a status describes, for messages.
func kindOf(st vfs.FileStatus) string {
	if st.IsDir {
		return "directory"
	}
	return "file"
}

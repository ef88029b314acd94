package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) lsCommand() *cobra.Command {
	var o lsOptions
	cmd := &cobra.Command{
		Use:   "ls [-l [-h]] [-a] [-R [-L]] [-b|-N|-Q|--zero|--json] URI...",
		Short: "List directories (or show files) on any file system",
		Long: `List the entries of a directory, sorted by name; directories end in "/".
A file lists itself. With -R, everything below the directory is listed, one
path per line relative to URI; symbolic links are listed but not descended
into unless -L is given (a link back to a directory being listed is reported
and skipped, and the exit status is 1). With -l, each line also shows the type
(d, - or l for a symbolic link), the size in bytes (with -h in binary units:
1.5K, 20M, as coreutils' ls -lh) and the modification time (UTC). ls always
shows every entry, including names that start with "."; -a/--all is accepted
for scripts written for coreutils. vfskit's own temporary files are never
listed, with -a neither: a recoverable stream's in-progress file
(.vfskit-inprogress-*) and pieces (.vfskit-rw-*), an upload's marker
(.vfskit-upload-*), a write's temporary file (.vfskit-tmp-*); the system's ls -a or the store's own listing shows them,
and vfskit rm removes them by their full name. Help is --help (-h means human-readable
sizes here, as in coreutils).

With several URIs, each listing follows a line "URI:" and a blank line
separates them; one that fails is reported and the others are still listed
(exit status 1).

With --json, every entry is one JSON object on its own line (no headers):
path (the full URI), name (as ls prints it), type (file, dir or symlink), size,
and modTime (RFC 3339, UTC; absent when the file system has none). A path or
name that is not valid UTF-8 (which JSON shows with U+FFFD) also comes as
pathBase64/nameBase64: its exact bytes in base64, to give back to vfskit.

Names are written as GNU ls writes them. On a terminal, a name that holds a
control character (a newline, an escape sequence), invalid UTF-8 or a
character the shell would split on is quoted the way a shell reads it back
('a b', 'a'$'\n''b', $'\033''[2J'): it can neither rewrite the screen nor pass
for two entries. When standard output is not a terminal names are written as
they are, for scripts; to be unambiguous there use --zero (each line ends in a
NUL byte instead of a newline: vfskit ls --zero DIR | xargs -0 ...), -b (C
escapes: a\nb), -Q (in double quotes) or --json. --quoting-style (a global
flag) chooses any style: literal, shell-escape, escape or c.`,
		Example: `  vfskit ls s3://bucket/data
  vfskit ls -lR file:///tmp/checkpoints
  vfskit ls -lah file:///tmp/checkpoints
  vfskit ls --json s3://bucket/a s3://bucket/b | grep -c '"path"'
  vfskit ls .`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			a.quoting = o.style(a.quoting)
			if len(argv) == 1 || o.json {
				return a.forEach(cmd.Context(), argv, func(loc location) error { return a.ls(cmd, a.stdio.Out, loc, o) })
			}
			first := true
			return a.forEach(cmd.Context(), argv, func(loc location) error {
				// A listing that fails before printing anything gets no header.
				var b bytes.Buffer
				err := a.ls(cmd, &b, loc, o)
				if b.Len() > 0 || err == nil {
					if !first {
						fmt.Fprint(a.stdio.Out, o.eol())
					}
					first = false
					fmt.Fprintf(a.stdio.Out, "%s:%s", a.pathName(loc.path), o.eol())
					if _, werr := b.WriteTo(a.stdio.Out); err == nil {
						err = werr
					}
				}
				return err
			})
		}),
	}
	cmd.Flags().BoolVarP(&o.long, "long", "l", false, "show type, size and modification time")
	cmd.Flags().BoolVarP(&o.recursive, "recursive", "R", false, "list everything below the directory")
	cmd.Flags().BoolVarP(&o.follow, "dereference", "L", false, "with -R, descend into directories that symbolic links point to (loops are reported, not followed)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON object per entry")
	cmd.Flags().BoolVarP(&o.all, "all", "a", false, "show every entry (always done; accepted for coreutils compatibility)")
	cmd.Flags().BoolVarP(&o.human, "human-readable", "h", false, "with -l, print sizes in binary units (1.5K, 20M)")
	cmd.Flags().Bool("help", false, "help for ls") // -h is --human-readable, as in coreutils
	cmd.Flags().BoolVarP(&o.escape, "escape", "b", false, "write names with C escapes for control characters (a\\nb), as --quoting-style=escape")
	cmd.Flags().BoolVarP(&o.literal, "literal", "N", false, "write names as they are, even on a terminal (--quoting-style=literal)")
	cmd.Flags().BoolVarP(&o.quote, "quote-name", "Q", false, `write names in double quotes with C escapes (--quoting-style=c)`)
	cmd.Flags().BoolVar(&o.zero, "zero", false, "end each line with a NUL byte, not a newline, and write names as they are")
	cmd.MarkFlagsMutuallyExclusive("zero", "json")
	cmd.MarkFlagsMutuallyExclusive("escape", "literal", "quote-name", "zero")
	return cmd
}

// lsOptions are ls's flags.
type lsOptions struct {
	long, recursive, follow, json bool
	escape, literal, quote, zero  bool
	all, human                    bool
}

// style returns the quoting style ls's own flags choose, or def.
func (o lsOptions) style(def quotingStyle) quotingStyle {
	switch {
	case o.zero, o.literal:
		return quoteLiteral
	case o.escape:
		return quoteEscape
	case o.quote:
		return quoteC
	}
	return def
}

// eol is what ends each line ls writes.
func (o lsOptions) eol() string {
	if o.zero {
		return "\x00"
	}
	return "\n"
}

// ls lists loc on w.
func (a *app) ls(cmd *cobra.Command, w io.Writer, loc location, o lsOptions) error {
	ctx := cmd.Context()
	tw := &longTable{}
	print := func(st vfs.FileStatus, name string) {
		if st.IsDir && !st.Symlink && !o.json {
			name += "/"
		}
		tw.add(st, name)
	}
	flush := func() error {
		switch {
		case o.json:
			return tw.writeJSON(w)
		case o.long:
			return tw.writeLong(w, a.name, o.eol(), o.human)
		}
		return tw.writeNames(w, a.name, o.eol())
	}
	if !o.recursive {
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
	// A loop, or a directory below the root that cannot be listed, is
	// reported at the end (exit status 1) and the listing goes on, as GNU
	// ls -R does.
	var skipped []error
	err := vfs.WalkWith(ctx, loc.fsys, loc.path, vfs.WalkOptions{FollowLinks: o.follow}, func(st vfs.FileStatus, err error) error {
		if errors.Is(err, vfs.ErrLinkLoop) {
			skipped = append(skipped, err)
			return nil
		}
		if err != nil {
			if ctx.Err() != nil || st.Path.IsZero() || st.Path.Path() == root {
				return err
			}
			skipped = append(skipped, err)
			return nil
		}
		rel, _ := st.Path.Rel(loc.path)
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
	return errors.Join(append(skipped, err)...)
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

// writeNames writes one name per line, quoted by quote, each line ended by
// eol.
func (t *longTable) writeNames(w io.Writer, quote func(string) string, eol string) error {
	for _, n := range t.names {
		if _, err := fmt.Fprint(w, quote(n), eol); err != nil {
			return err
		}
	}
	return nil
}

// writeJSON writes one JSON object per entry (see statusJSON).
func (t *longTable) writeJSON(w io.Writer) error {
	for i, st := range t.rows {
		if err := writeJSONLine(w, newStatusJSON(st, t.names[i])); err != nil {
			return err
		}
	}
	return nil
}

// writeLong writes "ls -l" lines: type, size (right-aligned; in binary units
// when human), modification time in UTC, name (quoted by quote), each ended by
// eol.
func (t *longTable) writeLong(w io.Writer, quote func(string) string, eol string, human bool) error {
	size := func(n int64) string { return fmt.Sprint(n) }
	if human {
		size = humanSize
	}
	width := 1
	for _, st := range t.rows {
		width = max(width, len(size(st.Size)))
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
		if _, err := fmt.Fprintf(w, "%s %*s %s %s%s", kind, width, size(st.Size), mod, quote(t.names[i]), eol); err != nil {
			return err
		}
	}
	return nil
}

// kindOf names what a status describes, for messages.
func kindOf(st vfs.FileStatus) string {
	if st.IsDir {
		return "directory"
	}
	return "file"
}

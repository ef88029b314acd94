package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) statCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stat [--json] URI...",
		Short: "Show the status of files or directories",
		Long: `Show the path, type, size and modification time of a file or directory,
and the file system that serves it (its URI and kind: FileSystem or ObjectStore);
for a file on an object store also its Content-Type, Content-Encoding,
Cache-Control and user metadata.
User info in a URI is shown as xxxxx. With several URIs, a blank line separates
them; one that fails is reported and the others are still shown (exit status 1).

With --json, each is one JSON object on its own line: path, type (file, dir or
symlink), size, modTime (RFC 3339, UTC; absent when the file system has none),
fileSystem and kind (and for a file on an object store contentType,
contentEncoding, cacheControl and metadata, when set); pathBase64 (the exact bytes, base64) when the path is not
valid UTF-8. For a symbolic link (file://), type is symlink, size and modTime
are its target's, target is the path it resolves to and targetType is file,
dir or missing (a link whose target does not exist); the text output says
"symbolic link to a file" (or directory) and shows the target.`,
		Example: `  vfskit stat s3://bucket/data/part-0
  vfskit stat file:///tmp/vfskit-demo
  vfskit stat --json s3://bucket/a s3://bucket/b`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			first := true
			return a.forEach(cmd.Context(), argv, func(loc location) error {
				st, err := loc.fsys.Stat(cmd.Context(), loc.path)
				st, link, err := linkStatus(cmd.Context(), loc, st, err)
				if err != nil {
					return err
				}
				if asJSON {
					j := newStatusJSON(st, "")
					j.FileSystem, j.Kind = vfs.RedactURL(loc.fsys.URI()), loc.fsys.Kind().String()
					if attrs, ok := fileAttributes(cmd.Context(), loc, st); ok {
						j.Attributes = &attrs
					}
					if st.Symlink {
						j.TargetType = link.targetType
						if !link.target.IsZero() {
							j.Target = link.target.Redacted()
						}
					}
					return writeJSONLine(a.stdio.Out, j)
				}
				if !first {
					fmt.Fprintln(a.stdio.Out)
				}
				first = false
				if err := a.printStat(loc, st, link); err != nil {
					return err
				}
				if attrs, ok := fileAttributes(cmd.Context(), loc, st); ok {
					return a.printAttributes(attrs)
				}
				return nil
			})
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per URI")
	return cmd
}

// fileAttributes returns the attributes of the file st on a file system
// that keeps them (the object stores, blobfs); ok is false for a directory,
// elsewhere, or when they cannot be read.
func fileAttributes(ctx context.Context, loc location, st vfs.FileStatus) (vfs.Attributes, bool) {
	bf, isBlob := loc.fsys.(*blobfs.FileSystem)
	if st.IsDir || !isBlob {
		return vfs.Attributes{}, false
	}
	attrs, err := bf.StatAttributes(ctx, loc.path)
	return attrs, err == nil
}

// printAttributes writes stat's lines for a file's attributes.
func (a *app) printAttributes(attrs vfs.Attributes) error {
	w := a.stdio.Out
	for _, f := range []struct{ name, v string }{{"Content-Type", attrs.ContentType}, {"Encoding", attrs.ContentEncoding}, {"Cache", attrs.CacheControl}} {
		if f.v != "" {
			fmt.Fprintf(w, "%-12s %s\n", f.name+":", f.v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(attrs.Metadata)) {
		fmt.Fprintf(w, "%-12s %s=%s\n", "Metadata:", k, attrs.Metadata[k])
	}
	return nil
}

// linkInfo is what stat tells about a symbolic link: the path it resolves
// to ("" when its target is missing) and the target's type ("file", "dir"
// or "missing").
type linkInfo struct {
	target     vfs.Path
	targetType string
}

// linkStatus completes stat's result (st, err) for file systems with
// symbolic links (vfs.RealPathFS): when loc itself is a link, st.Symlink is
// set and the link's target and its type are returned. A link whose target
// is missing (Stat failed with fs.ErrNotExist) is found by listing its
// directory and reported as a link, not as a missing file.
func linkStatus(ctx context.Context, loc location, st vfs.FileStatus, err error) (vfs.FileStatus, linkInfo, error) {
	rp, ok := loc.fsys.(vfs.RealPathFS)
	switch {
	case !ok:
		return st, linkInfo{}, err
	case errors.Is(err, fs.ErrNotExist) && !loc.path.Parent().IsZero():
		entries, lerr := loc.fsys.List(ctx, loc.path.Parent())
		if lerr != nil {
			return st, linkInfo{}, err
		}
		for _, e := range entries {
			if e.Symlink && e.Path.Name() == loc.path.Name() {
				return e, linkInfo{targetType: "missing"}, nil
			}
		}
		return st, linkInfo{}, err
	case err != nil:
		return st, linkInfo{}, err
	}
	link, err := vfs.IsSymlink(ctx, loc.fsys, loc.path)
	if err != nil || !link {
		return st, linkInfo{}, err
	}
	real, err := rp.RealPath(ctx, loc.path)
	if err != nil {
		return st, linkInfo{}, err
	}
	st.Symlink = true
	info := linkInfo{target: real, targetType: "file"}
	if st.IsDir {
		info.targetType = "dir"
	}
	return st, info, nil
}

// printStat writes stat's lines for st, served by loc's file system; link
// tells about st when it is a symbolic link.
func (a *app) printStat(loc location, st vfs.FileStatus, link linkInfo) error {
	mod := "-"
	if !st.ModTime.IsZero() {
		mod = st.ModTime.UTC().Format(time.RFC3339)
	}
	w := a.stdio.Out
	fmt.Fprintf(w, "Path:        %s\n", a.pathName(st.Path))
	switch {
	case st.Symlink && link.targetType == "missing":
		fmt.Fprintf(w, "Type:        symbolic link (its target does not exist)\n")
	case st.Symlink:
		fmt.Fprintf(w, "Type:        symbolic link to a %s\n", kindOf(st))
		fmt.Fprintf(w, "Target:      %s\n", a.pathName(link.target))
	default:
		fmt.Fprintf(w, "Type:        %s\n", kindOf(st))
	}
	fmt.Fprintf(w, "Size:        %d (%s)\n", st.Size, humanBytes(st.Size))
	fmt.Fprintf(w, "Modified:    %s\n", mod)
	_, err := fmt.Fprintf(w, "File system: %s (%s)\n", vfs.RedactURL(loc.fsys.URI()), loc.fsys.Kind())
	return err
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

// humanSize formats n bytes as coreutils' ls -h does: "512", "1.5K", "20M",
// "3.0G" (binary units, one decimal below 10, rounded up).
func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprint(n)
	}
	v, exp := float64(n), -1
	for v >= unit && exp < 5 {
		v /= unit
		exp++
	}
	if v < 10 {
		v = math.Ceil(v*10) / 10
	} else {
		v = math.Ceil(v)
	}
	if v >= unit && exp < 5 { // rounded up into the next unit
		v, exp = 1, exp+1
	}
	if v < 10 {
		return fmt.Sprintf("%.1f%c", v, "KMGTPE"[exp])
	}
	return fmt.Sprintf("%.0f%c", v, "KMGTPE"[exp])
}

package checkpointstorage

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// removeCheckpoint lists the checkpoint directory r.Dir (symbolic links are
// not followed) and removes what it listed (deleteListed). m is its
// _metadata, decoded before the listing from the version seen (zero: it has
// none). With WithDryRun it lists nothing and deletes nothing.
func (o *options) removeCheckpoint(ctx context.Context, fsys vfs.FileSystem, r *DiscardReport, m *metadata.Metadata, seen vfs.Version, blocked unresolvedNames) error {
	t := &tree{root: r.Dir}
	if !o.dryRun {
		var err error
		if t, err = scanTree(ctx, fsys, r.Dir, nil); err != nil {
			return err
		}
		if es := t.dirs[r.Dir]; len(es) == 1 && es[0].Path == r.Dir && !es[0].IsDir {
			return vfs.NewPathError("discard checkpoint", r.Dir, fmt.Errorf("%w: a file, not a checkpoint directory; left in place", vfs.ErrNotDir))
		}
	}
	return o.deleteListed(ctx, fsys, r, m, t, seen, blocked)
}

// deleteListed deletes the checkpoint r.Dir, whose _metadata decoded to m
// (nil: it has none), file by file: only the files t listed, each only at
// the version listed (vfs.DeleteVersion), _metadata first — at seen, the
// version whose bytes were decoded, when it was read before t listed it (zero
// seen: as listed) — then the exclusive state files m names outside r.Dir but
// inside the job's directory (each only at the version a Stat sees just
// before, and only if its size is the one m records for it), then the other
// files, then its emptied directories without recursion, deepest first (once
// a file was left, one swapped for a symbolic link since the listing stays,
// in r.Left). It fills in r.Files and
// r.Outside; with WithDryRun it deletes nothing.
//
// A file that changed or appeared since the listing stays and is named in
// r.Left; a FIFO, device or socket stays and is named in r.Special; a
// _metadata that changed keeps the whole checkpoint (r.Kept). A file already
// gone when its delete is sent (deleted by another remover, or by this
// delete's own first attempt, whose answer was lost) counts as deleted.
//
// While another snapshot's reference in blocked (one vfskit cannot resolve)
// records the name of a file it would delete, nothing of it is deleted
// (r.Kept names the reference).
func (o *options) deleteListed(ctx context.Context, fsys vfs.FileSystem, r *DiscardReport, m *metadata.Metadata, t *tree, seen vfs.Version, blocked unresolvedNames) error {
	if m != nil {
		r.Files, r.Outside = o.exclusiveFiles(ctx, m, r.Dir)
	}
	if len(blocked) > 0 {
		for _, p := range r.Files {
			if why := blocked.blocking(p, r.Dir); why != "" {
				r.Kept, r.Files, r.Outside = why, nil, nil
				return nil
			}
		}
		for _, f := range t.files {
			if why := blocked.blocking(f.Path, r.Dir); why != "" && within(r.Dir, f.Path) {
				r.Kept, r.Files, r.Outside = why, nil, nil
				return nil
			}
		}
	}
	if o.dryRun {
		return nil
	}
	mp := r.Dir.Join(MetadataFileName)
	listed := map[vfs.Path]vfs.FileStatus{}
	for _, f := range t.files {
		listed[f.Path] = f
	}
	var sizes map[vfs.Path]int64
	if m != nil && len(r.Files) > 0 {
		sizes = o.recordedSizes(ctx, m, r.Dir)
	}
	// del deletes p at the version seen or listed (an entropy-injected file
	// named only by the metadata: at the version a Stat sees just before,
	// if its size is the one the metadata records; a _metadata of no known
	// version: never); false when p changed meanwhile.
	del := func(p vfs.Path) (bool, error) {
		st, ok := listed[p]
		v := vfs.VersionOf(st)
		if p == mp && seen != (vfs.Version{}) {
			ok, v = true, seen
		}
		switch {
		case !ok && p == mp:
			return false, nil
		case !ok:
			st, err := fsys.Stat(ctx, p)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return true, nil
			case err != nil:
				return false, err
			case !st.IsRegular() || st.Symlink || st.Size != sizes[o.keyOf(ctx, p)]:
				return false, nil
			}
			v = vfs.VersionOf(st)
		}
		return deleteExact(ctx, fsys, p, v)
	}
	if st, ok := listed[mp]; ok && !st.IsRegular() {
		r.Kept = "its " + MetadataFileName + " is not a regular file (" + st.Special.String() + "): it is neither read nor deleted"
		return nil
	}
	if _, ok := listed[mp]; ok || m != nil {
		gone, err := del(mp)
		if err != nil {
			return err
		}
		if !gone {
			r.Kept = "its " + MetadataFileName + " changed after it was read: nothing of it was deleted"
			return nil
		}
	}
	for _, p := range r.Files {
		if gone, err := del(p); err != nil {
			return err
		} else if !gone {
			r.Left = append(r.Left, p)
		}
	}
	for _, f := range t.files {
		switch {
		case f.Path == mp || !within(r.Dir, f.Path):
			continue
		case !f.IsRegular():
			r.Special = append(r.Special, f.Path)
			continue
		}
		if gone, err := del(f.Path); err != nil {
			return err
		} else if !gone {
			r.Left = append(r.Left, f.Path)
		}
	}
	var dirs []vfs.Path
	for d := range t.dirs {
		if d == r.Dir || within(r.Dir, d) {
			dirs = append(dirs, d)
		}
	}
	slices.SortFunc(dirs, func(a, b vfs.Path) int {
		return cmp.Or(cmp.Compare(b.Depth(), a.Depth()), cmp.Compare(a.String(), b.String()))
	})
	// Once a listed file was found changed (a directory swapped for a
	// symbolic link to a copy shows so: the files it leads to are others), a
	// directory is removed only where it still is: one that is, or lies
	// below, a link swapped in since the listing (its path resolves elsewhere
	// than below the resolved parent of r.Dir) stays, in Left, and so does
	// the link, since what it leads to is not the checkpoint's.
	var top, realTop vfs.Path
	if len(r.Left) > 0 {
		top = r.Dir.Parent()
		var err error
		if realTop, err = vfs.RealPath(ctx, fsys, top); err != nil {
			return err
		}
	}
	for _, d := range dirs {
		if !realTop.IsZero() {
			rel, _ := d.Rel(top)
			real, err := vfs.RealPath(ctx, fsys, d)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				continue
			case err != nil:
				return err
			case real != realTop.Join(rel):
				r.Left = append(r.Left, d)
				continue
			}
		}
		err := fsys.Delete(ctx, d, false)
		if errors.Is(err, vfs.ErrDirNotEmpty) {
			// Name what is there that was not listed (a file that appeared).
			entries, lerr := fsys.List(ctx, d)
			if lerr != nil {
				return lerr
			}
			for _, e := range entries {
				_, ok := listed[e.Path]
				if _, walked := t.dirs[e.Path]; !ok && !walked && !slices.Contains(r.Left, e.Path) {
					r.Left = append(r.Left, e.Path)
				}
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

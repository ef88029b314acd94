package checkpointstorage

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"slices"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// deleteListed deletes the checkpoint r.Dir, whose _metadata decoded to m
// (nil: it has none), as deleteCheckpoint does, but only the files t listed,
// each at the version listed (vfs.DeleteVersion), then its emptied
// directories without recursion, deepest first. A file that changed or
// appeared since the listing stays and is named in r.Left; a _metadata that
// changed keeps the whole checkpoint (r.Kept).
func (o *options) deleteListed(ctx context.Context, fsys vfs.FileSystem, r *DiscardReport, m *metadata.Metadata, t *tree) error {
	if m != nil {
		r.Files, r.Outside = o.exclusiveFiles(m, r.Dir)
	}
	if o.dryRun {
		return nil
	}
	listed := map[vfs.Path]vfs.FileStatus{}
	for _, f := range t.files {
		listed[f.Path] = f
	}
	// del deletes p at its listed version (a file not listed: as it is);
	// false when p changed meanwhile.
	del := func(p vfs.Path) (bool, error) {
		st, ok := listed[p]
		if !ok {
			return true, fsys.Delete(ctx, p, false)
		}
		err := vfs.DeleteVersion(ctx, fsys, p, vfs.VersionOf(st))
		switch {
		case errors.Is(err, vfs.ErrChanged):
			return false, nil
		case err == nil || errors.Is(err, fs.ErrNotExist):
			return true, nil
		}
		return false, err
	}
	mp := r.Dir.Join(MetadataFileName)
	if _, ok := listed[mp]; ok || m != nil {
		gone, err := del(mp)
		if err != nil {
			return err
		}
		if !gone {
			r.Kept = "its " + MetadataFileName + " changed after it was listed"
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
		if f.Path == mp || !within(r.Dir, f.Path) {
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
	for _, d := range dirs {
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

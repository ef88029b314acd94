package checkpointstorage

import (
	"context"
	"errors"
	"io/fs"

	"github.com/vfskit/vfskit/vfs"
)

// dirLister answers "is this file there, and how big is it" by listing each
// directory once (one paginated LIST per directory on an object store) instead
// of a Stat per file. Directories a walk already listed are seeded with add.
type dirLister struct {
	registry *vfs.Registry
	dirs     map[vfs.Path]listing
}

type listing struct {
	entries map[string]vfs.FileStatus
	err     error
}

func newDirLister(r *vfs.Registry) *dirLister {
	return &dirLister{registry: r, dirs: map[vfs.Path]listing{}}
}

// add records the listing of dir.
func (l *dirLister) add(dir vfs.Path, entries []vfs.FileStatus) {
	m := make(map[string]vfs.FileStatus, len(entries))
	for _, e := range entries {
		m[e.Name()] = e
	}
	l.dirs[dir] = listing{entries: m}
}

// stat returns p's status from the listing of its parent directory, listed at
// the first call. ok is false when p is not a file there (missing, or a
// directory); err is set when the directory could not be listed.
func (l *dirLister) stat(ctx context.Context, p vfs.Path) (st vfs.FileStatus, ok bool, err error) {
	dir := p.Parent()
	d, seen := l.dirs[dir]
	if !seen {
		fsys, err := l.registry.GetPath(ctx, dir)
		var entries []vfs.FileStatus
		if err == nil {
			entries, err = fsys.List(ctx, dir)
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, vfs.ErrNotDir) {
			err = nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return st, false, ctx.Err()
			}
			l.dirs[dir] = listing{err: err}
			return st, false, err
		}
		l.add(dir, entries)
		d = l.dirs[dir]
	}
	if d.err != nil {
		return st, false, d.err
	}
	st, ok = d.entries[p.Name()]
	return st, ok && !st.IsDir, nil
}

// qualified builds the options and returns p's file system and p qualified.
func qualified(ctx context.Context, p vfs.Path, opts []Option) (options, vfs.FileSystem, vfs.Path, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return o, nil, p, err
	}
	fsys, err := o.registry.GetPath(ctx, p)
	if err != nil {
		return o, nil, p, err
	}
	return o, fsys, p.MakeQualified(fsys), nil
}

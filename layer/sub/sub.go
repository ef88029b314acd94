// Package sub is a layer that shows a subtree of a file system as a file
// system of its own, like io/fs.Sub and afero's BasePathFs: the view's root
// "/" is a directory of the file system below, and every path given to the
// view is mapped under that directory.
//
// No path reaches outside the subtree, however it is written: a path is first
// qualified against the view (a path of another scheme or authority fails with
// fs.ErrInvalid), then mapped name by name, and a "." or ".." name fails with
// fs.ErrInvalid instead of being resolved. Names are never decoded, so
// "%2e%2e" is a file of that name. Paths in what the view returns (List, Stat,
// CleanTemp, RealPath) are the view's paths.
//
// Two limits, as for io/fs.Sub: a symbolic link inside the subtree that points
// outside it is followed by the file system below (RealPath refuses to return
// a path outside the subtree, fs.ErrPermission, so Walk does not follow it);
// and the view has the same URI as the file system below, so vfs.Copy between
// the view and that file system itself must not be asked for (it would read
// the source path in the view).
package sub

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// FS is the subtree below Root of the file system below it.
type FS struct {
	layer.Base
	root  vfs.Path // qualified on Inner
	names []string // root's names
	top   vfs.Path // the view's "/"
}

// New returns the view of inner's subtree at root (absolute, or relative to
// inner's working directory; on inner). root need not exist yet.
func New(inner vfs.FileSystem, root vfs.Path) (*FS, error) {
	q, err := vfs.Qualify("sub", inner, root)
	if err != nil {
		return nil, err
	}
	names, err := split(q)
	if err != nil {
		return nil, vfs.NewPathError("sub", root, err)
	}
	top, err := vfs.PathOf(q.Scheme(), q.Authority())
	if err != nil {
		return nil, err
	}
	return &FS{Base: layer.Base{Inner: inner}, root: q, names: names, top: top}, nil
}

// Root returns the directory of the file system below that is the view's "/".
func (f *FS) Root() vfs.Path { return f.root }

// split returns the names of an absolute path, refusing "." and "..".
func split(p vfs.Path) ([]string, error) {
	var names []string
	for n := range strings.SplitSeq(p.Path(), "/") {
		switch n {
		case "":
		case ".", "..":
			return nil, fmt.Errorf("%w: name %q (expected a path without \".\" or \"..\" names)", fs.ErrInvalid, n)
		default:
			names = append(names, n)
		}
	}
	return names, nil
}

// in maps a path of the view to the path below.
func (f *FS) in(op string, p vfs.Path) (vfs.Path, error) {
	q, err := vfs.Qualify(op, f, p)
	if err != nil {
		return vfs.Path{}, err
	}
	names, err := split(q)
	if err != nil {
		return vfs.Path{}, vfs.NewPathError(op, p, err)
	}
	below, err := vfs.PathOf(f.root.Scheme(), f.root.Authority(), append(append([]string(nil), f.names...), names...)...)
	if err != nil {
		return vfs.Path{}, vfs.NewPathError(op, p, err)
	}
	return below, nil
}

// out maps a path below back to the view; a path outside the subtree fails
// with fs.ErrPermission.
func (f *FS) out(op string, below vfs.Path) (vfs.Path, error) {
	names, err := split(below)
	if err == nil && (len(names) < len(f.names) || below.Scheme() != f.root.Scheme() || below.Authority() != f.root.Authority()) {
		err = fs.ErrPermission
	}
	for i := 0; err == nil && i < len(f.names); i++ {
		if names[i] != f.names[i] {
			err = fs.ErrPermission
		}
	}
	if err != nil {
		return vfs.Path{}, vfs.NewPathError(op, below, fmt.Errorf("%w: path is outside the subtree %s", err, f.root.Redacted()))
	}
	return vfs.PathOf(f.top.Scheme(), f.top.Authority(), names[len(f.names):]...)
}

// WorkingDirectory is the view's root.
func (f *FS) WorkingDirectory() vfs.Path { return f.top }

// HomeDirectory is the view's root.
func (f *FS) HomeDirectory() vfs.Path { return f.top }

// Stat maps p and returns the status with the view's path.
func (f *FS) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	below, err := f.in("stat", p)
	if err != nil {
		return vfs.FileStatus{}, err
	}
	st, err := f.Inner.Stat(ctx, below)
	if err != nil {
		return vfs.FileStatus{}, err
	}
	st.Path, err = f.out("stat", st.Path)
	return st, err
}

// List maps dir and returns the entries with the view's paths.
func (f *FS) List(ctx context.Context, dir vfs.Path) ([]vfs.FileStatus, error) {
	below, err := f.in("list", dir)
	if err != nil {
		return nil, err
	}
	entries, err := f.Inner.List(ctx, below)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		if entries[i].Path, err = f.out("list", entries[i].Path); err != nil {
			return nil, err
		}
	}
	return entries, nil
}

// Open maps p and opens it below.
func (f *FS) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	below, err := f.in("open", p)
	if err != nil {
		return nil, err
	}
	return f.Inner.Open(ctx, below)
}

// OpenBeneath maps dir and opens dir/rel below without following a symbolic
// link in rel (vfs.OpenBeneathFS); a "." or ".." name in rel fails with
// fs.ErrInvalid, and a file system below without the way fails with
// errors.ErrUnsupported (layer.Base).
func (f *FS) OpenBeneath(ctx context.Context, dir vfs.Path, rel string) (vfs.InputStream, error) {
	below, err := f.in("open", dir)
	if err != nil {
		return nil, err
	}
	for n := range strings.SplitSeq(rel, "/") {
		if n == "" || n == "." || n == ".." {
			return nil, vfs.NewPathError("open", dir.Join(rel), fmt.Errorf("%w: %q is not a path of names below %s", fs.ErrInvalid, rel, dir.Redacted()))
		}
	}
	return f.Base.OpenBeneath(ctx, below, rel)
}

// Create maps p and creates it below.
func (f *FS) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	below, err := f.in("create", p)
	if err != nil {
		return nil, err
	}
	return f.Inner.Create(ctx, below, mode)
}

// CreateUnsynced maps p and creates it below without a directory sync.
func (f *FS) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	below, err := f.in("create", p)
	if err != nil {
		return nil, err
	}
	return f.Base.CreateUnsynced(ctx, below, mode)
}

// SyncDir maps dir and syncs it below.
func (f *FS) SyncDir(ctx context.Context, dir vfs.Path) error {
	below, err := f.in("sync", dir)
	if err != nil {
		return err
	}
	return f.Base.SyncDir(ctx, below)
}

// Mkdirs maps p and creates it below.
func (f *FS) Mkdirs(ctx context.Context, p vfs.Path) error {
	below, err := f.in("mkdir", p)
	if err != nil {
		return err
	}
	return f.Inner.Mkdirs(ctx, below)
}

// Delete maps p and deletes it below.
func (f *FS) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	below, err := f.in("delete", p)
	if err != nil {
		return err
	}
	return f.Inner.Delete(ctx, below, recursive)
}

// DeleteVersion maps p and deletes it below if it is still at version v.
func (f *FS) DeleteVersion(ctx context.Context, p vfs.Path, v vfs.Version) error {
	below, err := f.in("delete", p)
	if err != nil {
		return err
	}
	return f.Base.DeleteVersion(ctx, below, v)
}

// Unnameable maps dir and returns the keys below it that no path names, as
// the store below spells them.
func (f *FS) Unnameable(ctx context.Context, dir vfs.Path, limit int) ([]string, error) {
	below, err := f.in("list", dir)
	if err != nil {
		return nil, err
	}
	return f.Base.Unnameable(ctx, below, limit)
}

// Rename maps both paths and renames below.
func (f *FS) Rename(ctx context.Context, src, dst vfs.Path) error {
	s, err := f.in("rename", src)
	if err != nil {
		return err
	}
	d, err := f.in("rename", dst)
	if err != nil {
		return err
	}
	return f.Inner.Rename(ctx, s, d)
}

// ReadFile maps p and reads it below (with the fast path below, if any).
func (f *FS) ReadFile(ctx context.Context, p vfs.Path) ([]byte, error) {
	below, err := f.in("read", p)
	if err != nil {
		return nil, err
	}
	return f.Base.ReadFile(ctx, below)
}

// WriteFile maps p and writes it below (with the fast path below, if any).
func (f *FS) WriteFile(ctx context.Context, p vfs.Path, data []byte, mode vfs.WriteMode) error {
	below, err := f.in("write", p)
	if err != nil {
		return err
	}
	return f.Base.WriteFile(ctx, below, data, mode)
}

// CopyFile maps both paths and copies below (server-side, if it can).
func (f *FS) CopyFile(ctx context.Context, dst, src vfs.Path, mode vfs.WriteMode) (int64, error) {
	d, err := f.in("copy", dst)
	if err != nil {
		return 0, err
	}
	s, err := f.in("copy", src)
	if err != nil {
		return 0, err
	}
	return f.Base.CopyFile(ctx, d, s, mode)
}

// CleanTemp maps dir, cleans below, and returns the view's paths.
func (f *FS) CleanTemp(ctx context.Context, dir vfs.Path, cutoff time.Time, dryRun bool) ([]vfs.Path, error) {
	below, err := f.in("clean temp", dir)
	if err != nil {
		return nil, err
	}
	found, err := f.Base.CleanTemp(ctx, below, cutoff, dryRun)
	for i := range found {
		var oerr error
		if found[i], oerr = f.out("clean temp", found[i]); oerr != nil && err == nil {
			err = oerr
		}
	}
	return found, err
}

// RealPath maps p, resolves it below, and returns the view's path; a path
// that resolves outside the subtree (a symbolic link out of it) fails with
// fs.ErrPermission.
func (f *FS) RealPath(ctx context.Context, p vfs.Path) (vfs.Path, error) {
	below, err := f.in("realpath", p)
	if err != nil {
		return vfs.Path{}, err
	}
	real, err := f.Base.RealPath(ctx, below)
	if err != nil {
		return vfs.Path{}, err
	}
	return f.out("realpath", real)
}

package vfs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"time"
)

// IOFS returns the tree under root as an io/fs.FS (also fs.StatFS, fs.ReadDirFS and
// fs.ReadFileFS), so the standard library's tools (fs.WalkDir, template.ParseFS,
// http.FS, testing/fstest) work on any backend. Every call uses ctx. The result
// passes testing/fstest.TestFS.
func IOFS(ctx context.Context, fsys FileSystem, root Path) fs.FS {
	return &ioFS{ctx: ctx, fsys: fsys, root: root}
}

type ioFS struct {
	ctx  context.Context
	fsys FileSystem
	root Path
}

func (f *ioFS) resolve(op, name string) (Path, error) {
	// Join is exact: a "\" or ":" in name is a character, never a separator, as
	// io/fs requires.
	if !fs.ValidPath(name) {
		return Path{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return f.root, nil
	}
	return f.root.Join(name), nil
}

// rename rewrites a vfs error so that it names the fs.FS-relative path.
func rename(op, name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: name, Err: pe.Err}
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

func (f *ioFS) Open(name string) (fs.File, error) {
	p, err := f.resolve("open", name)
	if err != nil {
		return nil, err
	}
	st, err := f.fsys.Stat(f.ctx, p)
	if err != nil {
		return nil, rename("open", name, err)
	}
	info := fileInfo{name: path.Base(name), st: st}
	if st.IsDir {
		return &ioDir{fs: f, name: name, path: p, info: info}, nil
	}
	in, err := f.fsys.Open(f.ctx, p)
	if err != nil {
		return nil, rename("open", name, err)
	}
	return &ioFile{InputStream: in, info: info}, nil
}

func (f *ioFS) Stat(name string) (fs.FileInfo, error) {
	p, err := f.resolve("stat", name)
	if err != nil {
		return nil, err
	}
	st, err := f.fsys.Stat(f.ctx, p)
	if err != nil {
		return nil, rename("stat", name, err)
	}
	return fileInfo{name: path.Base(name), st: st}, nil
}

func (f *ioFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := f.resolve("readdir", name)
	if err != nil {
		return nil, err
	}
	st, err := f.fsys.Stat(f.ctx, p)
	if err != nil {
		return nil, rename("readdir", name, err)
	}
	if !st.IsDir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: ErrNotDir}
	}
	return f.list(name, p)
}

// list returns the entries of the directory p (named name in this fs.FS).
func (f *ioFS) list(name string, p Path) ([]fs.DirEntry, error) {
	list, err := f.fsys.List(f.ctx, p)
	if err != nil {
		return nil, rename("readdir", name, err)
	}
	out := make([]fs.DirEntry, len(list))
	for i, s := range list {
		out[i] = fs.FileInfoToDirEntry(fileInfo{name: s.Name(), st: s})
	}
	return out, nil
}

func (f *ioFS) ReadFile(name string) ([]byte, error) {
	p, err := f.resolve("read", name)
	if err != nil {
		return nil, err
	}
	data, err := ReadFile(f.ctx, f.fsys, p)
	if err != nil {
		return nil, rename("read", name, err)
	}
	return data, nil
}

type fileInfo struct {
	name string
	st   FileStatus
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.st.Size }
func (i fileInfo) ModTime() time.Time { return i.st.ModTime }
func (i fileInfo) IsDir() bool        { return i.st.IsDir }
func (i fileInfo) Sys() any           { return nil }
func (i fileInfo) Mode() fs.FileMode {
	if i.st.IsDir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

type ioFile struct {
	InputStream
	info fileInfo
}

func (f *ioFile) Stat() (fs.FileInfo, error) { return f.info, nil }

type ioDir struct {
	fs      *ioFS
	name    string
	path    Path
	info    fileInfo
	entries []fs.DirEntry
	listed  bool
	closed  bool
}

func (d *ioDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *ioDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: ErrIsDir}
}
func (d *ioDir) Close() error {
	if d.closed {
		return &fs.PathError{Op: "close", Path: d.name, Err: fs.ErrClosed}
	}
	d.closed = true
	return nil
}

func (d *ioDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.listed {
		entries, err := d.fs.list(d.name, d.path) // Open already knows it is a directory
		if err != nil {
			return nil, err
		}
		d.entries, d.listed = entries, true
	}
	if n <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	out := d.entries[:n:n]
	d.entries = d.entries[n:]
	return out, nil
}

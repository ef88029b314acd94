package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/vfskit/vfskit/vfs"
)

func init() {
	vfs.RegisterIdentity(Scheme, Identity)
}

// Identity is file://'s location rule (vfs.Identity): the canonical path of
// file:///a/b/name is file:// with the symbolic links in its existing
// ancestors resolved (os.Readlink, as filepath.EvalSymlinks does) and name
// kept, so /data/x and /mnt/disk1/x are one file where /data links to
// /mnt/disk1. The name itself is not resolved: a link is an object of its own
// (deleting it removes the link, not what it leads to). file:/x, file:///x
// and file://localhost/x are the same path; any other authority fails with
// fs.ErrInvalid. Ancestors that do not exist are kept as written, so a path
// of a file not yet written compares as the same file will once it is.
func Identity(_ context.Context, _ *vfs.Registry, p vfs.Path) (vfs.Path, error) {
	if a := p.Authority(); a != "" && !strings.EqualFold(a, "localhost") {
		return vfs.Path{}, &fs.PathError{Op: "canonical", Path: p.Redacted(), Err: fmt.Errorf(
			"%w: a file URI has no authority (expected file:///path)", fs.ErrInvalid)}
	}
	if p.Path() == "/" {
		return p.WithScheme(Scheme, "")
	}
	dir, err := resolveExisting(filepath.FromSlash(p.Parent().Path()))
	if err != nil {
		return vfs.Path{}, &fs.PathError{Op: "canonical", Path: p.Redacted(), Err: err}
	}
	d, err := vfs.ParsePath(Scheme + "://" + filepath.ToSlash(dir))
	if err != nil {
		return vfs.Path{}, err
	}
	return d.Join(p.Name()), nil
}

// resolveExisting resolves the symbolic links in dir's longest existing
// prefix and appends the rest as written.
func resolveExisting(dir string) (string, error) {
	var rest []string
	for d := dir; ; {
		r, err := filepath.EvalSymlinks(d)
		if err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				r = filepath.Join(r, rest[i])
			}
			return r, nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return "", err
		}
		up := filepath.Dir(d)
		if up == d {
			return dir, nil
		}
		rest = append(rest, filepath.Base(d))
		d = up
	}
}

package vfs

import (
	"fmt"
	"io/fs"
	"strings"
)

// Qualify checks that p belongs to fsys and returns it absolute and fully
// qualified with fsys's scheme and authority. A relative p resolves against
// fsys.WorkingDirectory(). It fails with an *fs.PathError wrapping fs.ErrInvalid for
// the zero Path and for a path of another scheme or authority. Backends call it at
// the top of every operation; op names the operation in the error.
func Qualify(op string, fsys FileSystem, p Path) (Path, error) {
	if p.IsZero() {
		return Path{}, &fs.PathError{Op: op, Path: "", Err: fmt.Errorf("%w: empty path", fs.ErrInvalid)}
	}
	u := fsys.URI()
	scheme, authority := strings.ToLower(u.Scheme), authorityOf(u)
	if p.scheme != "" && p.scheme != scheme || p.authority != "" && p.authority != authority {
		return Path{}, &fs.PathError{Op: op, Path: p.Redacted(), Err: fmt.Errorf(
			"%w: path belongs to another file system (expected a path on %s)", fs.ErrInvalid, RedactURL(u))}
	}
	q := p.MakeQualified(fsys)
	if !q.IsAbsolute() {
		return Path{}, &fs.PathError{Op: op, Path: p.Redacted(), Err: fmt.Errorf(
			"%w: path does not resolve to an absolute path (working directory %s)", fs.ErrInvalid, fsys.WorkingDirectory().Redacted())}
	}
	return q, nil
}

package aferofs

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

// tempPrefix starts the name of every in-flight file. Such names are hidden from
// List and reserved: paths with a segment starting with it are rejected.
const tempPrefix = ".vfskit-tmp-"

// isTempName reports whether a directory entry is an in-flight file.
func isTempName(name string) bool { return strings.HasPrefix(name, tempPrefix) }

// ready reports whether p is already what qualify returns for it: absolute,
// with f's scheme and authority, and naming no reserved temporary file (what
// Stat and Create mostly get). It costs a few string comparisons (IsAbsolute
// only where a leading "/C:" can make "/" relative).
func (f *FileSystem) ready(p *vfs.Path) bool {
	pp := p.Path()
	return pp != "" && pp[0] == '/' && p.Scheme() == f.root.Scheme() && p.Authority() == f.root.Authority() &&
		(!f.drives || p.IsAbsolute()) && !strings.Contains(pp, "/"+tempPrefix)
}

// qualify is vfs.Qualify plus the check that p names no reserved temporary file.
// An absolute path with f's scheme and authority, or with none, is qualified
// without vfs.Qualify's general checks.
func (f *FileSystem) qualify(op string, p vfs.Path) (vfs.Path, error) {
	if f.ready(&p) {
		return p, nil
	}
	q := p
	switch scheme, authority := p.Scheme(), p.Authority(); {
	case scheme == "" && authority == "" && p.IsAbsolute():
		q = p.MakeQualified(qualifier{f})
	case scheme == f.root.Scheme() && authority == f.root.Authority() && p.IsAbsolute():
		// Already qualified (a reserved name, refused below).
	default:
		var err error
		if q, err = vfs.Qualify(op, qualifier{f}, p); err != nil {
			return vfs.Path{}, err
		}
	}
	if pp := q.Path(); strings.Contains(pp, "/"+tempPrefix) {
		return vfs.Path{}, vfs.NewPathError(op, q, fmt.Errorf(
			"%w: names starting with %q are reserved for files being written", fs.ErrInvalid, tempPrefix))
	}
	return q, nil
}

// qualifier is f for vfs.Qualify, whose URI is f's own (not a copy, which would
// cost an allocation on every operation); vfs.Qualify only reads it.
type qualifier struct{ *FileSystem }

func (q qualifier) URI() *url.URL { return &q.uri }

// name returns the afero name of a qualified path: its path part, with the
// platform's separator ("/C:/x" is "C:\x" on Windows).
func name(p vfs.Path) string {
	n := p.Path()
	if filepath.Separator != '/' {
		if len(n) >= 3 && n[0] == '/' && n[2] == ':' {
			n = n[1:]
		}
		n = filepath.FromSlash(n)
	}
	return n
}

// tempName returns a fresh temporary name in the directory of the afero name n
// (a clean absolute name, so its directory is what precedes its last separator).
func tempName(n string) string {
	dir := n[:strings.LastIndexByte(n, filepath.Separator)+1]
	b := make([]byte, 0, len(dir)+len(tempPrefix)+13)
	b = append(append(b, dir...), tempPrefix...)
	return string(strconv.AppendUint(b, rand.Uint64(), 36))
}

// isRoot reports whether a qualified path is the root directory ("/", or a
// drive's "/C:/" where the scheme has drives). A longer path is not, which
// spares the common case building p's parent.
func isRoot(p vfs.Path) bool { return len(p.Path()) <= len("/C:/") && p.Parent().IsZero() }

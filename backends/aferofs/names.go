package aferofs

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
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

// qualify is vfs.Qualify plus the check that p names no reserved temporary file.
func (f *FileSystem) qualify(op string, p vfs.Path) (vfs.Path, error) {
	q, err := vfs.Qualify(op, f, p)
	if err != nil {
		return vfs.Path{}, err
	}
	if pp := q.Path(); strings.Contains(pp, "/"+tempPrefix) {
		return vfs.Path{}, vfs.NewPathError(op, q, fmt.Errorf(
			"%w: names starting with %q are reserved for files being written", fs.ErrInvalid, tempPrefix))
	}
	return q, nil
}

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

// tempName returns a fresh temporary name in the directory of the afero name n.
func tempName(n string) string {
	return filepath.Join(filepath.Dir(n), tempPrefix+strconv.FormatUint(rand.Uint64(), 36))
}

// isRoot reports whether a qualified path is the root directory.
func isRoot(p vfs.Path) bool { return p.Parent().IsZero() }

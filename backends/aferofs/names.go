package aferofs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

// Temporary names
//
// A file being written lives under a temporary name in its target's directory:
// tempPrefix, 16 hex digits of a random write id, and 8 hex digits of a check
// of that id (the start of its SHA-256 with a fixed label), 36 characters in
// all, such as ".vfskit-tmp-3f9a0c1d2e4b5a69c0ffee42". Only names of exactly
// that form are the engine's: List hides them, Create, Stat and the rest
// refuse them (fs.ErrInvalid) and CleanTemp removes them when stale. Any other
// name, ".vfskit-tmp-notes.txt" or ".vfskit-tmp-1" included, is a user's name
// like any other: listed, copied, moved and never removed by CleanTemp. A
// user's file takes the engine's form only on purpose (one random name in 2^32
// carries a valid check).

// tempPrefix starts the name of every in-flight file.
const tempPrefix = ".vfskit-tmp-"

// tempIDLen and tempCheckLen are the lengths, in hex digits, of the write id
// and of its check in a temporary name.
const (
	tempIDLen    = 16
	tempCheckLen = 8
)

// tempCheck returns the check of a temporary name's write id (hex digits).
func tempCheck(id string) string {
	sum := sha256.Sum256([]byte("vfskit temporary file " + id))
	return hex.EncodeToString(sum[:tempCheckLen/2])
}

// isTempName reports whether a directory entry's name is one the engine gives
// in-flight files (see Temporary names): the prefix, a write id in lowercase
// hex and that id's check.
func isTempName(name string) bool {
	if len(name) != len(tempPrefix)+tempIDLen+tempCheckLen || !strings.HasPrefix(name, tempPrefix) {
		return false
	}
	rest := name[len(tempPrefix):]
	for _, c := range []byte(rest) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return rest[tempIDLen:] == tempCheck(rest[:tempIDLen])
}

// hasTempName reports whether a '/'-separated path has a segment that is a
// temporary name.
func hasTempName(p string) bool {
	for {
		i := strings.Index(p, "/"+tempPrefix)
		if i < 0 {
			return false
		}
		p = p[i+1:]
		if seg, _, _ := strings.Cut(p, "/"); isTempName(seg) {
			return true
		}
	}
}

// ready reports whether p is already what qualify returns for it: absolute,
// with f's scheme and authority, and with no segment starting with tempPrefix
// (what Stat and Create mostly get; such a segment is checked by qualify). It
// costs a few string comparisons (IsAbsolute only where a leading "/C:" can
// make "/" relative).
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
	if hasTempName(q.Path()) {
		return vfs.Path{}, vfs.NewPathError(op, q, fmt.Errorf(
			"%w: the name is of the form %q + 24 hex digits with a valid check, reserved for files being written", fs.ErrInvalid, tempPrefix))
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

// tempName returns a fresh temporary name (see Temporary names) in the
// directory of the afero name n (a clean absolute name, so its directory is
// what precedes its last separator).
func tempName(n string) string {
	dir := n[:strings.LastIndexByte(n, filepath.Separator)+1]
	id := strconv.FormatUint(rand.Uint64(), 16)
	id = strings.Repeat("0", tempIDLen-len(id)) + id
	return dir + tempPrefix + id + tempCheck(id)
}

// isRoot reports whether a qualified path is the root directory ("/", or a
// drive's "/C:/" where the scheme has drives). A longer path is not, which
// spares the common case building p's parent.
func isRoot(p vfs.Path) bool { return len(p.Path()) <= len("/C:/") && p.Parent().IsZero() }

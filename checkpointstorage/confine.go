package checkpointstorage

import (
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

// jobDirOf returns the directory that discarding checkpointDir may delete in:
// the job's directory (<base>/<job id>) for a chk-N directory below the root,
// the directory itself otherwise (a savepoint).
func jobDirOf(checkpointDir vfs.Path) vfs.Path {
	if _, ok := ParseCheckpointDirName(checkpointDir.Name()); ok && checkpointDir.Parent().Depth() > 0 {
		return checkpointDir.Parent()
	}
	return checkpointDir
}

// within reports whether p lies strictly inside dir, comparing exact qualified
// paths: the same (non-empty) scheme and authority, and dir's path a prefix of
// p's that ends at a segment boundary. A path with a "." or ".." segment, which
// a parsed Path never has, is never inside.
func within(dir, p vfs.Path) bool {
	if dir.Scheme() == "" || p.Scheme() != dir.Scheme() || p.Authority() != dir.Authority() {
		return false
	}
	pp, dp := p.Path(), dir.Path()
	if hasDotSegment(pp) || hasDotSegment(dp) || !strings.HasPrefix(dp, "/") {
		return false
	}
	if dp != "/" {
		dp += "/"
	}
	return len(pp) > len(dp) && strings.HasPrefix(pp, dp)
}

func hasDotSegment(p string) bool {
	for _, s := range strings.Split(p, "/") {
		if s == "." || s == ".." {
			return true
		}
	}
	return false
}

// confines reports whether discarding a checkpoint of jobDir may delete p: p is
// inside jobDir or, with entropy injection configured, p is a path inside jobDir
// with entropy injected, that is with entropyLength alphanumeric characters
// inserted at one place of the path above the job's directory (where the key
// was in the configured path).
func (o *options) confines(jobDir, p vfs.Path) bool {
	if within(jobDir, p) {
		return true
	}
	if o.entropyKey == "" || p.Scheme() != jobDir.Scheme() || p.Authority() != jobDir.Authority() || hasDotSegment(p.Path()) {
		return false
	}
	pp, n := p.Path(), o.entropyLength
	above := len(jobDir.Parent().Path()) // the key sits in the base directory
	for i := 0; i <= above && i+n <= len(pp); i++ {
		rest := pp[:i] + pp[i+n:]
		if !alphanumeric(pp[i:i+n]) || hasDotSegment(rest) {
			continue
		}
		if q := withPathPart(p, rest); q != p && within(jobDir, q) {
			return true
		}
	}
	return false
}

func alphanumeric(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(entropyAlphabet, rune(s[i])) {
			return false
		}
	}
	return true
}

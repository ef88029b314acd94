package checkpointstorage

import (
	"context"
	"strings"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
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
	rel, in := p.Rel(dir)
	return in && rel != "" && dir.Scheme() != "" && strings.HasPrefix(dir.Path(), "/") &&
		!hasDotSegment(p.Path()) && !hasDotSegment(dir.Path())
}

func hasDotSegment(p string) bool {
	for _, s := range strings.Split(p, "/") {
		if s == "." || s == ".." {
			return true
		}
	}
	return false
}

// entropyOf reports whether p is, with entropy injection configured, a path
// inside dir with entropy injected, exactly as the writer injects it
// (Flink's EntropyInjector): entropyLength alphanumeric characters in place of
// the key, where the key is in the configured checkpoints directory. With
// WithEntropyBase that place is known: the key's first occurrence in the
// configured path. Without it the key is taken to be a whole path segment
// (s3://bucket/_entropy_/checkpoints, as Flink documents it) above the job's
// directory, so the entropy is a whole segment there: a name such as
// ckpt2024 or ckABCDpt, where entropy would have to sit inside a segment,
// never matches.
//
// dir and p are canonical paths (dirKey, key); so is the entropy base.
func (o *options) entropyOf(ctx context.Context, dir, p vfs.Path) bool {
	if o.entropyKey == "" || p.Scheme() != dir.Scheme() || p.Authority() != dir.Authority() || hasDotSegment(p.Path()) {
		return false
	}
	pp, n := p.Path(), o.entropyLength
	match := func(i int) bool {
		if i < 0 || i+n > len(pp) || !alphanumeric(pp[i:i+n]) {
			return false
		}
		rest := pp[:i] + pp[i+n:]
		if hasDotSegment(rest) {
			return false
		}
		q := withPathPart(p, rest)
		return q != p && within(dir, q)
	}
	if !o.entropyBase.IsZero() {
		b := o.dirKey(ctx, o.entropyBase)
		if b.Scheme() != p.Scheme() || b.Authority() != p.Authority() {
			return false
		}
		return match(strings.Index(b.Path(), o.entropyKey))
	}
	above := len(jobDirOf(dir).Parent().Path()) // the key sits in the base directory
	for i := 1; i <= above+1 && i+n < len(pp); i++ {
		if pp[i-1] == '/' && pp[i+n] == '/' && match(i) {
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

// exclusiveFiles sorts the files m references that belong to its checkpoint
// alone (not shared state: neither a vfskit file handle of the Shared scope nor
// a shared file of an incremental RocksDB handle) and lie outside dir, the
// checkpoint directory: files are entropy-injected paths of files inside dir,
// which discarding the checkpoint deletes one by one; outside are the ones
// outside the job's directory, which it never deletes. The other files (inside
// dir, which go with it, or elsewhere in the job's directory: shared/,
// taskowned/, another checkpoint's) are in neither list. Locations are
// compared by their canonical paths; files are spelled as dir is (its file
// system deletes them), and a reference that cannot be resolved is outside.
func (o *options) exclusiveFiles(ctx context.Context, m *metadata.Metadata, dir vfs.Path) (files, outside []vfs.Path) {
	shared := map[metadata.Handle]bool{}
	m.Walk(func(_ *metadata.Operator, _ *metadata.Subtask, h metadata.Handle) {
		if inc, ok := h.(*metadata.IncrementalRemoteKeyedStateHandle); ok {
			for _, f := range inc.SharedState {
				shared[f.Handle] = true
			}
		}
	})
	dk, jk := o.dirKey(ctx, dir), o.dirKey(ctx, jobDirOf(dir))
	for _, ref := range m.Files() {
		if shared[ref.Handle] || isSharedScope(ref.Handle) {
			continue
		}
		p, err := ref.Resolve(dir)
		if err != nil || within(dir, p) {
			continue
		}
		k, err := o.key(ctx, p)
		switch {
		case err != nil:
			outside = append(outside, p)
		case within(dk, k):
		case !ref.Segment && o.entropyOf(ctx, dk, k):
			files = append(files, respell(dir, k))
		case !within(jk, k):
			outside = append(outside, p)
		}
	}
	return files, outside
}

// isSharedScope reports whether h is a file handle recorded as shared state.
func isSharedScope(h metadata.Handle) bool {
	switch h := h.(type) {
	case *FileStateHandle:
		return h.Scope == Shared
	case *metadata.FileStateHandle:
		return h.Shared
	}
	return false
}

// recordedSizes returns the size m records for each whole file it references
// (a file state handle's StateSize; segments of merged files are not
// whole files), resolved against the checkpoint directory dir, by canonical
// path. A file recorded with two different sizes gets -1, which no file has.
func (o *options) recordedSizes(ctx context.Context, m *metadata.Metadata, dir vfs.Path) map[vfs.Path]int64 {
	sizes := map[vfs.Path]int64{}
	for _, ref := range m.Files() {
		r, err := ref.Resolve(dir)
		if err != nil || ref.Segment {
			continue
		}
		p, err := o.key(ctx, r)
		if err != nil {
			continue
		}
		if n, ok := sizes[p]; ok && n != ref.Size {
			sizes[p] = -1
			continue
		}
		sizes[p] = ref.Size
	}
	return sizes
}

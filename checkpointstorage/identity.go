package checkpointstorage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// locations remembers the canonical paths (vfs.Registry.Canonical) one
// call has asked for: every decision that compares locations (references,
// orphans, retention, gc's guards, relocation's "inside", entropy, mappings)
// compares canonical paths, never spellings, so s3a://b/x and s3://b/x, or a
// file:// path through a linked ancestor and the path it leads to, are one
// file.
type locations struct {
	mu   sync.Mutex
	memo map[vfs.Path]located
}

type located struct {
	key vfs.Path
	err error
}

// key returns the canonical path of p (an error when its scheme's rule
// cannot tell which object it names: vfs.ErrForeign for a store this
// process is not configured for).
func (o *options) key(ctx context.Context, p vfs.Path) (vfs.Path, error) {
	reg := o.registry
	if reg == nil {
		reg = vfs.DefaultRegistry()
	}
	if o.locs == nil {
		return reg.Canonical(ctx, p)
	}
	o.locs.mu.Lock()
	l, ok := o.locs.memo[p]
	o.locs.mu.Unlock()
	if ok {
		return l.key, l.err
	}
	k, err := reg.Canonical(ctx, p)
	if ctx.Err() != nil {
		return k, err // not remembered: a cancelled call is no answer
	}
	o.locs.mu.Lock()
	o.locs.memo[p] = located{k, err}
	o.locs.mu.Unlock()
	return k, err
}

// keyOf is key for a path vfskit listed or was given (which its file system
// serves): the path itself when the rule fails, so it compares as written.
func (o *options) keyOf(ctx context.Context, p vfs.Path) vfs.Path {
	k, err := o.key(ctx, p)
	if err != nil {
		return p
	}
	return k
}

// dirKey is keyOf for a directory whose contents are compared: its own name
// resolved too (a file:// directory that is a link stands for what it leads
// to), so that keyOf of every path in it lies within it.
func (o *options) dirKey(ctx context.Context, dir vfs.Path) vfs.Path {
	if dir.Depth() == 0 {
		return o.keyOf(ctx, dir)
	}
	k, err := o.key(ctx, dir.Join(".vfskit-location"))
	if err != nil {
		return dir
	}
	return k.Parent()
}

// respell returns the canonical path k in the spelling of dir (its scheme and
// authority), so that dir's file system reaches it; k must lie on dir's
// canonical store.
func respell(dir, k vfs.Path) vfs.Path {
	p, err := k.WithScheme(dir.Scheme(), dir.Authority())
	if err != nil {
		return k
	}
	return p
}

// Unresolved is a reference a completed snapshot makes in a spelling vfskit
// cannot resolve (a scheme that is not registered, such as hdfs://, or a
// store it is not configured for): what it names is unknown, so it may be
// any file of the same name.
type Unresolved struct {
	// Snapshot is the directory of the snapshot whose _metadata records it.
	Snapshot vfs.Path
	// Recorded is the path as the _metadata records it.
	Recorded string
	// Err says why it cannot be resolved.
	Err error
}

// unresolvedNames indexes the unresolved references by the final name of the
// path they record: Flink's state files have unique (UUID) names, so a file
// of the same name anywhere may be the one referenced.
type unresolvedNames map[string][]Unresolved

// addRefs records the references of snapshot dir that did not resolve.
func (u unresolvedNames) addRefs(dir vfs.Path, refs []resolvedRef) {
	for _, r := range refs {
		if r.Err == nil {
			continue
		}
		if n := recordedName(r.FileRef.Path); n != "" {
			u[n] = append(u[n], Unresolved{Snapshot: dir, Recorded: r.FileRef.Path, Err: r.Err})
		}
	}
}

// recordedName is the last segment of a recorded path.
func recordedName(s string) string {
	s = strings.TrimRight(strings.ReplaceAll(s, `\`, "/"), "/")
	return s[strings.LastIndexByte(s, '/')+1:]
}

// blocking returns why p must not be deleted because of an unresolved
// reference of the same name (one not made by the snapshot in self, which
// goes with it), "" when none names it.
func (u unresolvedNames) blocking(p vfs.Path, self vfs.Path) string {
	for _, r := range u[p.Name()] {
		if !self.IsZero() && r.Snapshot == self {
			continue
		}
		return fmt.Sprintf("%s references %s, a location vfskit cannot resolve (%s): it may be %s; "+
			"tell where it is with a path mapping (--map %s=NEW)", r.Snapshot.Redacted(), vfs.Redact(r.Recorded),
			unresolvedWhy(r.Err), p.Redacted(), vfs.Redact(mappingHint(r.Recorded)))
	}
	return ""
}

// unresolvedWhy says in a few words why a reference did not resolve.
func unresolvedWhy(err error) string {
	var unsupported *vfs.UnsupportedSchemeError
	if errors.As(err, &unsupported) {
		return "no file system serves " + unsupported.Scheme + "://"
	}
	return vfs.RedactError(err).Error()
}

// mappingHint is the OLD of a mapping for a recorded path: its directory.
func mappingHint(recorded string) string {
	if i := strings.LastIndexByte(recorded, '/'); i > 0 {
		return recorded[:i]
	}
	return recorded
}

// unresolvedIn gathers the unresolved references of refs (the other jobs
// under the base) and of the snapshots of one job (whose _metadata decoded to
// ms, nil where it did not).
func (o *options) unresolvedIn(ctx context.Context, refs *References, snaps []Snapshot, ms []*metadata.Metadata) unresolvedNames {
	u := unresolvedNames{}
	for n, rs := range refs.Unresolved {
		u[n] = append(u[n], rs...)
	}
	for i, m := range ms {
		if m != nil && i < len(snaps) {
			u.addRefs(snaps[i].Dir, o.resolveRefs(ctx, m, snaps[i].Dir))
		}
	}
	return u
}

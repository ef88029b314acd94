package checkpointstorage

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// PathMapping tells where files that a _metadata names by an absolute path are
// now: a reference starting with Old is looked for under New instead, with the
// rest of its path unchanged. Flink records shared state (incremental RocksDB
// files) by absolute paths of the machine that wrote them, such as
// file:/state/checkpoint/<job>/shared/<uuid>; once the job's directory was
// copied elsewhere, the mapping file:/state/checkpoint=file:///where/it/is/now
// finds those files again.
type PathMapping struct {
	Old, New vfs.Path
}

// ParsePathMapping parses "OLD=NEW" (split at the first '='): OLD an absolute
// URI with a scheme, as a _metadata records paths (file:/x and file:///x are
// the same), NEW an absolute path or URI (without a scheme: the registry's
// default). Anything else fails with fs.ErrInvalid naming the value.
func ParsePathMapping(s string) (PathMapping, error) {
	oldS, newS, ok := strings.Cut(s, "=")
	bad := func(why string) (PathMapping, error) {
		return PathMapping{}, fmt.Errorf("checkpointstorage: invalid path mapping %q: %s (expected OLD=NEW, two absolute paths such as file:/state/checkpoint=s3://bucket/checkpoints): %w", s, why, fs.ErrInvalid)
	}
	if !ok {
		return bad("no '='")
	}
	oldP, err := vfs.NewPath(oldS)
	if err != nil || !oldP.IsAbsolute() {
		return bad("OLD is not an absolute path")
	}
	if oldP.Scheme() == "" {
		return bad("OLD has no scheme, and the paths a _metadata records have one (file:/..., hdfs://..., s3://...)")
	}
	newP, err := vfs.NewPath(newS)
	if err != nil || !newP.IsAbsolute() {
		return bad("NEW is not an absolute path")
	}
	return PathMapping{Old: oldP, New: newP}, nil
}

// String returns "OLD=NEW".
func (m PathMapping) String() string { return m.Old.String() + "=" + m.New.String() }

// Apply returns p under New when p is Old or lies below it (same scheme and
// authority, Old's path a prefix of p's ending at a segment boundary), and
// false otherwise.
func (m PathMapping) Apply(p vfs.Path) (vfs.Path, bool) {
	rest, ok := p.Rel(m.Old)
	if !ok {
		return p, false
	}
	return m.New.Join(rest), true
}

// WithPathMapping makes VerifyCheckpoint, AuditJob and Relocate look for the
// files a _metadata names by an absolute path through the mappings: the
// mapping with the longest Old that applies wins. Relative references are not
// mapped. Other functions ignore it.
func WithPathMapping(m ...PathMapping) Option {
	return func(o *options) { o.mappings = append(o.mappings, m...) }
}

// mapPath applies the mapping with the longest Old that applies to p: as
// written, or else as the same location (p's and Old's canonical paths, where
// both resolve: a mapping of s3a://b/x applies to s3://b/x/...).
func (o *options) mapPath(ctx context.Context, p vfs.Path) (vfs.Path, bool) {
	best, found := -1, false
	out := p
	for _, m := range o.mappings {
		if q, ok := m.Apply(p); ok && len(m.Old.Path()) > best {
			best, out, found = len(m.Old.Path()), q, true
		}
	}
	if found || len(o.mappings) == 0 {
		return out, found
	}
	k, err := o.key(ctx, p)
	if err != nil {
		return p, false
	}
	for _, m := range o.mappings {
		ok, err := o.key(ctx, m.Old)
		if err != nil {
			continue
		}
		if ok.Depth() > 0 {
			ok = o.dirKey(ctx, m.Old)
		}
		if rest, in := k.Rel(ok); in && len(m.Old.Path()) > best {
			best, out, found = len(m.Old.Path()), m.New.Join(rest), true
		}
	}
	return out, found
}

// resolvedRef is one file reference of a _metadata with where it is.
type resolvedRef struct {
	metadata.FileRef
	// Path is where the file is: a relative reference resolved against the
	// checkpoint directory, an absolute one parsed, mapped and qualified.
	Path vfs.Path
	// Key is Path's canonical path (vfs.Registry.Canonical), what comparisons
	// use; zero when Err is set.
	Key vfs.Path
	// Mapped is set when a PathMapping applied.
	Mapped bool
	// Err says why the reference has no path or no file system (an invalid
	// path, a scheme that is not registered such as hdfs).
	Err error
}

// resolveRefs resolves every file reference of m, read from the checkpoint
// directory dir.
func (o *options) resolveRefs(ctx context.Context, m *metadata.Metadata, dir vfs.Path) []resolvedRef {
	refs := m.Files()
	out := make([]resolvedRef, 0, len(refs))
	for _, f := range refs {
		r := resolvedRef{FileRef: f}
		if f.Reference == metadata.Absolute {
			r.Path, r.Mapped, r.Err = o.resolveAbsolute(ctx, f.Path)
		} else {
			r.Path, r.Err = f.Resolve(dir)
		}
		if r.Err == nil {
			r.Key, r.Err = o.key(ctx, r.Path)
		}
		out = append(out, r)
	}
	return out
}

// resolveAbsolute parses an absolute reference, maps it and qualifies it
// (mapped says whether a mapping applied).
func (o *options) resolveAbsolute(ctx context.Context, s string) (p vfs.Path, mapped bool, err error) {
	if p, err = vfs.NewPath(s); err != nil {
		return p, false, err
	}
	p, mapped = o.mapPath(ctx, p)
	fsys, err := o.registry.GetPath(ctx, p)
	if err != nil {
		return p, mapped, err
	}
	return p.MakeQualified(fsys), mapped, nil
}

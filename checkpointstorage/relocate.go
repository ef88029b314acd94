package checkpointstorage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// Relocation is what Relocate did.
type Relocation struct {
	// Src and Dst are the directories, qualified.
	Src, Dst vfs.Path
	// Files and Bytes count the files copied (_metadata files included).
	Files int
	Bytes int64
	// Metadata are the _metadata files written at Dst; Rewritten counts the
	// absolute references rewritten in them.
	Metadata  []vfs.Path
	Rewritten int
	// Verifications are the checks of every checkpoint and savepoint at Dst.
	Verifications []*Verification

	copied  *vfs.CopyResult // the copy of everything but the _metadata files, to undo on failure
	written []vfs.Version   // the version of each Metadata as written, the one an undo deletes
}

// ForeignReference is an absolute reference of a _metadata to a file outside
// what Relocate moves.
type ForeignReference struct {
	// Metadata is the _metadata file holding the reference.
	Metadata vfs.Path
	// Recorded is the path as recorded.
	Recorded string
}

// ForeignReferencesError is Relocate's refusal to move checkpoints that
// reference files outside what it moves (which the moved checkpoints would
// still need where they are): it lists every such reference. It wraps
// fs.ErrInvalid.
type ForeignReferencesError struct {
	Src  vfs.Path
	Refs []ForeignReference
}

// Error lists the references.
func (e *ForeignReferencesError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "checkpointstorage: relocate %s: %d reference(s) to files outside it (map them with a path mapping, OLD=NEW, or move the directory holding them):", e.Src, len(e.Refs))
	for _, r := range e.Refs {
		fmt.Fprintf(&b, "\n  %s in %s", r.Recorded, r.Metadata)
	}
	return b.String()
}

// Unwrap returns fs.ErrInvalid.
func (e *ForeignReferencesError) Unwrap() error { return fs.ErrInvalid }

// Relocate copies a savepoint, a checkpoint, or a whole job directory (all its
// checkpoints with shared/ and taskowned/) from src to dst, on any schemes,
// so that what it copied restores from dst:
//
//   - every file below src is copied to the same relative place below dst,
//     which must not exist or be empty (nothing is overwritten);
//   - every _metadata below src is decoded, and each absolute reference to a
//     file below src (as recorded, or after WithPathMapping) is rewritten to
//     the copy's path; a reference that a mapping sends elsewhere is rewritten
//     to the mapped path; relative references stay as they are;
//   - each _metadata is written last, in the format and version it was read
//     in (unchanged bytes when nothing was rewritten);
//   - then every checkpoint and savepoint at dst is verified (VerifyCheckpoint).
//
// Before anything is copied it refuses, with a *ForeignReferencesError
// listing them all, references to files outside src that no mapping covers;
// it also refuses a _metadata it cannot decode, a src without any _metadata
// (fs.ErrInvalid), and referenced files that are missing or of the wrong size
// at the source (fs.ErrNotExist, all listed). If copying fails, or the
// verification finds a problem, what it wrote below dst is deleted (and the
// directories this empties), each file only if it is still the version it
// wrote, and the error says why. A file replaced meanwhile stays and the
// error names it; when that is a _metadata, the files copied stay too (it may
// reference them). src is never modified.
func Relocate(ctx context.Context, src, dst vfs.Path, opts ...Option) (*Relocation, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	srcFS, err := o.registry.GetPath(ctx, src)
	if err != nil {
		return nil, err
	}
	dstFS, err := o.registry.GetPath(ctx, dst)
	if err != nil {
		return nil, err
	}
	src, dst = src.MakeQualified(srcFS), dst.MakeQualified(dstFS)
	r := &Relocation{Src: src, Dst: dst}
	// Compared as locations: the source reached through a link, or s3a://
	// for s3://, is still the source.
	srcKey, dstKey := o.dirKey(ctx, src), o.dirKey(ctx, dst)
	if _, in := dstKey.Rel(srcKey); in {
		return nil, vfs.NewPathError("relocate", dst, fmt.Errorf("the destination lies in the source %s: %w", src, fs.ErrInvalid))
	}
	if _, in := srcKey.Rel(dstKey); in {
		return nil, vfs.NewPathError("relocate", dst, fmt.Errorf("the destination holds the source %s: %w", src, fs.ErrInvalid))
	}
	children, err := srcFS.List(ctx, src)
	if err != nil {
		return nil, err
	}
	if len(children) == 1 && children[0].Path == src && !children[0].IsDir {
		return nil, vfs.NewPathError("relocate", src, fmt.Errorf("%w: expected a checkpoint, savepoint or job directory", vfs.ErrNotDir))
	}
	existing, err := dstFS.List(ctx, dst)
	created := errors.Is(err, fs.ErrNotExist)
	switch {
	case created:
	case err != nil:
		return nil, err
	case len(existing) > 0:
		return nil, vfs.NewPathError("relocate", dst, fmt.Errorf("the destination is not empty: %w", fs.ErrExist))
	}
	t, err := scanTree(ctx, srcFS, src, children)
	if err != nil {
		return nil, err
	}
	metas, err := o.rewriteReferences(ctx, srcFS, t, src, dst, r)
	if err != nil {
		return nil, err
	}
	if len(metas) == 0 {
		return nil, vfs.NewPathError("relocate", src, fmt.Errorf("no %s below it: not a checkpoint, savepoint or job directory: %w", MetadataFileName, fs.ErrInvalid))
	}
	if err := relocateFiles(ctx, srcFS, dstFS, t, src, dst, metas, r); err != nil {
		return r, undoRelocation(ctx, dstFS, r, err)
	}
	vo := append(opts[:len(opts):len(opts)], func(o *options) { o.mappings = nil })
	for _, p := range r.Metadata {
		v, err := VerifyCheckpoint(ctx, p, vo...)
		if err == nil && !v.OK() {
			err = fmt.Errorf("checkpointstorage: relocate: %s does not verify at its new place: %s %s", p, v.Problems()[0].Path, v.Problems()[0].Problem())
		}
		if err != nil {
			return r, undoRelocation(ctx, dstFS, r, err)
		}
		r.Verifications = append(r.Verifications, v)
	}
	return r, nil
}

// rewriteReferences decodes every _metadata of t, rewrites the absolute
// references into src for dst, and returns the new bytes of each _metadata
// (by path below src). It refuses undecodable metadata and references it
// cannot rewrite.
func (o *options) rewriteReferences(ctx context.Context, fsys vfs.FileSystem, t *tree, src, dst vfs.Path, r *Relocation) (map[vfs.Path][]byte, error) {
	metas := map[vfs.Path][]byte{}
	var foreign []ForeignReference
	var all []resolvedRef
	srcKey := o.dirKey(ctx, src)
	for _, f := range t.files {
		if f.Name() != MetadataFileName {
			continue
		}
		data, err := vfs.ReadFile(ctx, fsys, f.Path)
		if err != nil {
			return nil, err
		}
		m, err := metadata.Decode(data)
		if err != nil {
			return nil, vfs.NewPathError("relocate: read checkpoint metadata", f.Path, err)
		}
		rewritten := 0
		// moved returns where an absolute reference points after the move:
		// into dst for one into src (in any spelling of src's location),
		// the mapped place for one a mapping sends elsewhere; ok is false
		// for anything else.
		moved := func(p vfs.Path, mapped bool, err error) (string, bool) {
			if err != nil {
				return p.String(), false
			}
			if rel, in := p.Rel(src); in {
				return dst.Join(rel).String(), true
			}
			if k, kerr := o.key(ctx, p); kerr == nil {
				if rel, in := k.Rel(srcKey); in {
					return dst.Join(rel).String(), true
				}
			}
			return p.String(), mapped
		}
		refs := o.resolveRefs(ctx, m, f.Path.Parent())
		all = append(all, refs...)
		for _, ref := range refs {
			if ref.Reference == metadata.Relative {
				if _, in := ref.Path.Rel(src); ref.Err != nil || !in {
					foreign = append(foreign, ForeignReference{Metadata: f.Path, Recorded: ref.FileRef.Path})
				}
				continue
			}
			to, ok := moved(ref.Path, ref.Mapped, ref.Err)
			if !ok {
				foreign = append(foreign, ForeignReference{Metadata: f.Path, Recorded: ref.FileRef.Path})
				continue
			}
			if setPath(ref.Handle, to) {
				rewritten++
			}
		}
		// The directories of Flink's file merging are absolute references too.
		for _, d := range mergingDirs(m) {
			p, mapped, err := o.resolveAbsolute(ctx, *d)
			to, ok := moved(p, mapped, err)
			if !ok {
				foreign = append(foreign, ForeignReference{Metadata: f.Path, Recorded: *d})
				continue
			}
			if *d != to {
				*d = to
				rewritten++
			}
		}
		if rewritten > 0 {
			if data, err = metadata.Encode(m); err != nil {
				return nil, vfs.NewPathError("relocate: write checkpoint metadata", f.Path, err)
			}
		}
		metas[f.Path] = data
		r.Rewritten += rewritten
	}
	if len(foreign) > 0 {
		return nil, &ForeignReferencesError{Src: src, Refs: foreign}
	}
	// What is broken at the source would be broken at the destination:
	// check before copying anything (the files below src were listed already).
	l := newDirLister(o.registry)
	for d, entries := range t.dirs {
		l.add(d, entries)
	}
	checks, err := o.checkFiles(ctx, l, all)
	if err != nil {
		return nil, err
	}
	if v := (Verification{Files: checks}); !v.OK() {
		var b strings.Builder
		for _, c := range v.Problems() {
			fmt.Fprintf(&b, "\n  %s: %s", c.Problem(), c.Path)
		}
		return nil, fmt.Errorf("checkpointstorage: relocate %s: %d referenced file(s) are not right at the source, nothing was copied:%s: %w", src, len(v.Problems()), b.String(), fs.ErrNotExist)
	}
	return metas, nil
}

// setPath sets the recorded path of a file handle, reporting whether it
// changed.
func setPath(h metadata.Handle, p string) bool {
	switch h := h.(type) {
	case *metadata.FileStateHandle:
		changed := h.Path != p
		h.Path = p
		return changed
	case *metadata.SegmentFileStateHandle:
		changed := h.Path != p
		h.Path = p
		return changed
	}
	return false
}

// mergingDirs returns the recorded paths of the task-owned and shared
// directories of Flink's file merging (tag 17) in m, to rewrite in place.
func mergingDirs(m *metadata.Metadata) []*string {
	var ds []*string
	for _, h := range m.Handles() {
		if fm, ok := h.(*metadata.FileMergingOperatorStreamStateHandle); ok {
			for _, d := range []*metadata.DirectoryStateHandle{&fm.TaskOwnedDir, &fm.SharedDir} {
				if d.Path != "" {
					ds = append(ds, &d.Path)
				}
			}
		}
	}
	return ds
}

// copyConcurrency is how many files Relocate copies at a time.
const copyConcurrency = 8

// relocateFiles copies the files of t but the _metadata files
// (vfs.CopyTree, copyConcurrency at a time), then writes the _metadata files.
func relocateFiles(ctx context.Context, srcFS, dstFS vfs.FileSystem, t *tree, src, dst vfs.Path, metas map[vfs.Path][]byte, r *Relocation) error {
	planned := make(map[vfs.Path]bool, len(t.files))
	for _, f := range t.files {
		planned[f.Path] = true
	}
	res, err := vfs.CopyTree(ctx, dstFS, dst, srcFS, src, vfs.CopyOptions{
		Concurrency: copyConcurrency,
		Links:       vfs.LinksFollow,
		Filter: func(_ string, st vfs.FileStatus) bool {
			if st.IsDir {
				return !st.Symlink
			}
			_, isMeta := metas[st.Path]
			return planned[st.Path] && !isMeta
		},
	})
	if err != nil {
		return err
	}
	r.copied, r.Files, r.Bytes = res, len(res.Files), res.Bytes
	for _, f := range t.files {
		data, isMeta := metas[f.Path]
		if !isMeta {
			continue
		}
		rel, _ := f.Path.Rel(src)
		p := dst.Join(rel)
		out, err := writeMetadata(ctx, dstFS, p, data)
		if err != nil {
			return err
		}
		r.Files++
		r.Bytes += int64(len(data))
		r.Metadata = append(r.Metadata, p)
		v, err := writtenVersion(ctx, dstFS, p, data, out)
		r.written = append(r.written, v)
		if err != nil {
			return err
		}
	}
	return nil
}

// writeMetadata writes data to the new file p and returns the stream, closed,
// asked to keep the version it published (vfs.WrittenVersioner).
func writeMetadata(ctx context.Context, fsys vfs.FileSystem, p vfs.Path, data []byte) (vfs.OutputStream, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out, err := fsys.Create(ctx, p, vfs.NoOverwrite)
	if err != nil {
		return nil, err
	}
	if wv, ok := out.(vfs.WrittenVersioner); ok {
		wv.KeepVersion()
	}
	if _, err := out.Write(data); err != nil {
		vfs.Discard(out, cancel)
		return nil, err
	}
	return out, out.Close()
}

// writtenVersion returns the version of the file p that out published with
// data: the one undoRelocation may delete. It is the writer's own account
// (vfs.WrittenVersioner: no request) where it gives one; else the file read
// back, zero when it holds other bytes (someone replaced it).
func writtenVersion(ctx context.Context, fsys vfs.FileSystem, p vfs.Path, data []byte, out vfs.OutputStream) (vfs.Version, error) {
	if wv, ok := out.(vfs.WrittenVersioner); ok {
		v, err := wv.Version()
		if err == nil || !errors.Is(err, errors.ErrUnsupported) {
			return v, err
		}
	}
	in, err := vfs.OpenRegular(ctx, fsys, p)
	if err != nil {
		return vfs.Version{}, err
	}
	defer in.Close()
	got, err := io.ReadAll(io.LimitReader(in, int64(len(data))+1))
	if err != nil || !bytes.Equal(got, data) {
		return vfs.Version{}, err
	}
	return vfs.StreamVersion(ctx, fsys, p, in)
}

// undoRelocation deletes what Relocate wrote below r.Dst — the _metadata
// files first, each only if it is still the version Relocate wrote
// (vfs.DeleteVersion), so no checkpoint there ever looks complete with
// missing state, then the copy (vfs.CopyResult.Undo: its files, each at the
// version written, and the directories it created, where empty) — and
// returns cause. Files that others wrote or replaced there meanwhile are
// left alone, and the error names them. When a _metadata stays (replaced by
// someone else, or not proven to be Relocate's), so does the copy: that
// _metadata may reference it.
func undoRelocation(ctx context.Context, fsys vfs.FileSystem, r *Relocation, cause error) error {
	ctx = context.WithoutCancel(ctx)
	var errs []error
	for i, p := range r.Metadata {
		err := vfs.NewPathError("delete", p, fmt.Errorf("%w: it is not proven to hold what relocate wrote; left in place", vfs.ErrChanged))
		if v := r.written[i]; v != (vfs.Version{}) {
			err = vfs.DeleteVersion(ctx, fsys, p, v)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	switch {
	case r.copied == nil:
	case len(errs) > 0:
		errs = append(errs, fmt.Errorf("the %d file(s) copied below %s are left in place too: a %s left there may reference them", len(r.copied.Files), r.Dst.Redacted(), MetadataFileName))
	default:
		if err := r.copied.Undo(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w (and cleaning up %s failed: %v)", cause, r.Dst.Redacted(), err)
	}
	return cause
}

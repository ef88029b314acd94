package checkpointstorage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

// References is what every snapshot under a checkpoints base directory
// references: see ScanReferences.
type References struct {
	// Base is the base directory scanned, qualified.
	Base vfs.Path
	// By maps every file a completed snapshot references (resolved as
	// VerifyCheckpoint does, through WithPathMapping), by its canonical path
	// (vfs.Registry.Canonical: one key for every spelling of the file), to
	// the snapshot directories that reference it.
	By map[vfs.Path][]vfs.Path
	// Unresolved holds the references in a spelling that cannot be resolved
	// (a scheme that is not registered, a store this process is not
	// configured for), by the final name of the path they record: such a
	// reference may name any file of that name, which is then never deleted
	// as unreferenced.
	Unresolved map[string][]Unresolved
	// Blind lists what could not be seen: a job directory that cannot be
	// listed, a _metadata that cannot be read or decoded. What those
	// reference is unknown, so no file may be judged unreferenced by other
	// jobs while Blind names one.
	Blind []BlindSpot
}

// BlindSpot is a directory under a base directory whose references are
// unknown, and why.
type BlindSpot struct {
	// Dir is the job directory that cannot be listed or the snapshot
	// directory whose _metadata cannot be read or decoded.
	Dir vfs.Path
	Err error
}

// Outside returns the snapshot directories outside dir that reference the
// file whose canonical path is p (nil when none does).
func (r *References) Outside(dir, p vfs.Path) []vfs.Path {
	var out []vfs.Path
	for _, s := range r.By[p] {
		if !within(dir, s) {
			out = append(out, s)
		}
	}
	return out
}

// BlindErr is nil when everything under Base outside dir was seen, and
// otherwise an error naming what was not (the first blind spot outside dir,
// and how many more).
func (r *References) BlindErr(dir vfs.Path) error {
	var spots []BlindSpot
	for _, b := range r.Blind {
		if b.Dir != dir && !within(dir, b.Dir) {
			spots = append(spots, b)
		}
	}
	if len(spots) == 0 {
		return nil
	}
	more := ""
	if n := len(spots) - 1; n > 0 {
		more = fmt.Sprintf(" (and %d more)", n)
	}
	return fmt.Errorf("cannot see what every job under %s references: %w%s", r.Base.Redacted(), spots[0].Err, more)
}

// ScanReferences reads every _metadata under a checkpoints base directory
// (<base>: the chk-N directories of every job directory <base>/<job id>, and
// the savepoint-* directories in <base> and in the job directories) and
// returns the files they reference, by file.
//
// Flink's jobs share state across job ids: a job restored in CLAIM (or
// LEGACY) mode from another job's incremental RocksDB checkpoint references
// that job's shared/ files from its own checkpoints. Whatever deletes state of
// one job must therefore ask what every job under the base references:
// AuditJob (and so DeleteOrphans), CollectGarbage and RetainCheckpoints do. A
// job restored from a checkpoint under another base directory is not seen:
// see the package documentation for what that means.
//
// Symbolic links (file://) are not followed. A directory that cannot be
// listed and a _metadata that cannot be read or decoded are recorded in
// Blind, not returned as errors; a missing base has no references. It costs
// one LIST of base and of each job directory, and one read of each _metadata.
func ScanReferences(ctx context.Context, base vfs.Path, opts ...Option) (*References, error) {
	o, fsys, base, err := qualified(ctx, base, opts)
	if err != nil {
		return nil, err
	}
	return o.scanReferences(ctx, fsys, base, vfs.Path{})
}

// scanReferences is ScanReferences of the qualified base, leaving out the job
// directory skip (zero: none), whose references the caller has.
func (o *options) scanReferences(ctx context.Context, fsys vfs.FileSystem, base, skip vfs.Path) (*References, error) {
	refs := &References{Base: base, By: map[vfs.Path][]vfs.Path{}, Unresolved: map[string][]Unresolved{}}
	children, err := fsys.List(ctx, base)
	if errors.Is(err, fs.ErrNotExist) {
		return refs, nil
	}
	if err != nil {
		return nil, err
	}
	var snaps []Snapshot
	for _, c := range children {
		if !c.IsDir || c.Symlink || c.Path == base || c.Path == skip {
			continue
		}
		if strings.HasPrefix(c.Name(), SavepointDirPrefix) {
			snaps = append(snaps, Snapshot{Dir: c.Path, CheckpointID: -1, Savepoint: true, HasMetadata: true})
			continue
		}
		if _, ok := ParseJobDirName(c.Name()); !ok {
			continue
		}
		js, err := o.jobSnapshots(ctx, fsys, c.Path)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			refs.Blind = append(refs.Blind, BlindSpot{Dir: c.Path, Err: err})
			continue
		}
		snaps = append(snaps, js...)
	}
	for i := range snaps {
		s := &snaps[i]
		m, err := o.readSnapshotMetadata(ctx, fsys, s)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			refs.Blind = append(refs.Blind, BlindSpot{Dir: s.Dir, Err: err})
			continue
		case s.Err != nil:
			refs.Blind = append(refs.Blind, BlindSpot{Dir: s.Dir, Err: s.Err})
			continue
		case m == nil:
			continue
		}
		rs := o.resolveRefs(ctx, m, s.Dir)
		for _, r := range rs {
			if r.Err == nil {
				refs.By[r.Key] = append(refs.By[r.Key], s.Dir)
			}
		}
		unresolvedNames(refs.Unresolved).addRefs(s.Dir, rs)
	}
	return refs, nil
}

// jobSnapshots lists a job directory's chk-N and savepoint-* directories as
// snapshots to read (links left out).
func (o *options) jobSnapshots(ctx context.Context, fsys vfs.FileSystem, dir vfs.Path) ([]Snapshot, error) {
	entries, err := fsys.List(ctx, dir)
	if err != nil {
		return nil, err
	}
	chks, err := listCheckpointDirs(ctx, fsys, dir, entries)
	if err != nil {
		return nil, err
	}
	var out []Snapshot
	for _, s := range chks {
		if !s.Link {
			out = append(out, s)
		}
	}
	for _, e := range entries {
		if e.IsDir && !e.Symlink && strings.HasPrefix(e.Name(), SavepointDirPrefix) {
			out = append(out, Snapshot{Dir: e.Path, CheckpointID: -1, Savepoint: true, HasMetadata: true})
		}
	}
	return out, nil
}

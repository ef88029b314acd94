package checkpointstorage

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"slices"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// JobGC is what CollectGarbage did, or with WithDryRun would do, in one job's
// checkpoints directory.
type JobGC struct {
	// Dir is the job's checkpoints directory, qualified.
	Dir vfs.Path
	// Checkpoints are its chk-N directories as found before anything was
	// deleted, by id, with their sizes.
	Checkpoints []Snapshot
	// Reports has one report per checkpoint removed (a completed one beyond
	// the retained, or a failed checkpoint's leftover: Leftover) and per
	// checkpoint kept for a reason worth telling (Undecodable or Kept), by
	// id.
	Reports []DiscardReport
}

// Removed counts the checkpoints removed (with WithDryRun: that would be).
func (j *JobGC) Removed() int {
	n := 0
	for _, r := range j.Reports {
		if r.Removed() {
			n++
		}
	}
	return n
}

// CollectGarbage keeps the newest retain completed checkpoints of each job in
// dir and removes the older ones, together with the leftovers of failed
// checkpoints. dir is a job's checkpoints directory (<base>/<job id>, or any
// directory holding chk-N directories) or a base directory holding jobs; a
// checkpoint or savepoint directory has nothing to collect.
//
// Per job:
//   - Completed checkpoints (their _metadata decodes, as for
//     ListCompletedCheckpoints) beyond the newest retain go, oldest first, as
//     RetainCheckpoints removes them; a _metadata that cannot be decoded is
//     never removed and does not count towards retain (reported with
//     Undecodable).
//   - A chk-N directory without _metadata is a failed checkpoint's leftover,
//     removed, when it cannot be in progress: N is lower than the newest
//     completed checkpoint's id and every file in it is older than that
//     checkpoint's _metadata. This is the rule AuditJob applies to each file;
//     a job without a completed checkpoint keeps everything.
//   - A chk-N that is a symbolic link (file://) is reported (Kept), never
//     entered nor deleted.
//   - A checkpoint that holds a file referenced by a checkpoint of another
//     job under the same base directory (ScanReferences: a job restored from
//     it in CLAIM mode) is kept, and so is every checkpoint while some job
//     directory under the base cannot be listed or some _metadata there cannot
//     be decoded (Kept says which).
//   - A checkpoint holding a file whose name a reference of another snapshot
//     under the base records in a spelling that cannot be resolved
//     (References.Unresolved) is kept (Kept names the reference).
//   - A checkpoint holding a file that another snapshot in the job's
//     directory references (a savepoint-* or a directory of any name holding
//     a _metadata, found as AuditJob finds them) is kept (Kept says which).
//
// A checkpoint is removed file by file: only the files the scan listed, each
// only at the version listed (vfs.DeleteVersion), _metadata first, then its
// emptied directories without recursion, deepest first. A file written or
// changed in it meanwhile stays and is named in DiscardReport.Left, a FIFO,
// device or socket (never opened) in DiscardReport.Special (the checkpoint is
// partly removed); when its _metadata changed, nothing of it is deleted
// (Kept). DiscardCheckpoint and RetainCheckpoints remove a checkpoint the
// same way.
//
// Shared state, task-owned state and savepoints are never deleted (see
// AuditJob and DeleteOrphans for unreferenced shared state), nor anything
// outside the job's directory (DiscardReport.Outside). It returns one JobGC
// per job, in directory order; on error, those done before it. retain must be
// ≥ 1 (fs.ErrInvalid otherwise).
func CollectGarbage(ctx context.Context, dir vfs.Path, retain int, opts ...Option) ([]JobGC, error) {
	if retain < 1 {
		return nil, fmt.Errorf("checkpointstorage: must retain at least 1 checkpoint (got %d): %w", retain, fs.ErrInvalid)
	}
	o, fsys, dir, err := qualified(ctx, dir, opts)
	if err != nil {
		return nil, err
	}
	children, err := fsys.List(ctx, dir)
	if err != nil {
		return nil, err
	}
	if len(children) == 1 && !children[0].IsDir && children[0].Path == dir {
		return nil, vfs.NewPathError("gc", dir, fmt.Errorf("%w: expected a directory of checkpoints", vfs.ErrNotDir))
	}
	if isSnapshotDir(dir, children) {
		return nil, nil
	}
	// The jobs: dir itself when it holds chk-N directories, and the job
	// directories in it.
	var jobs []vfs.Path
	hasChk := false
	for _, c := range children {
		_, chk := ParseCheckpointDirName(c.Name())
		hasChk = hasChk || chk && c.IsDir
		if _, job := ParseJobDirName(c.Name()); job && c.IsDir && !c.Symlink {
			jobs = append(jobs, c.Path)
		}
	}
	if _, job := ParseJobDirName(dir.Name()); job || hasChk {
		jobs = append([]vfs.Path{dir}, jobs...)
	}
	var out []JobGC
	refs := map[vfs.Path]*References{} // by base
	for _, job := range jobs {
		base := job.Parent()
		if refs[base] == nil {
			skip := vfs.Path{} // every job of a base: each needs the others'
			if len(jobs) == 1 {
				skip = job // one job: its own references are its own
			}
			if refs[base], err = o.scanReferences(ctx, fsys, base, skip); err != nil {
				return out, err
			}
		}
		var listing []vfs.FileStatus
		if job == dir {
			listing = children
		}
		j, err := o.collectJob(ctx, fsys, job, listing, retain, refs[base])
		if j != nil {
			out = append(out, *j)
			if o.eachJob != nil {
				if ferr := o.eachJob(*j); ferr != nil && err == nil {
					err = ferr
				}
			}
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// WithEachJob makes CollectGarbage call fn with each job's JobGC once the job
// is done, before it starts the next; an error from fn stops it and is
// returned (a command line stops when it cannot report). Other functions
// ignore it.
func WithEachJob(fn func(JobGC) error) Option {
	return func(o *options) { o.eachJob = fn }
}

// collectJob is CollectGarbage of one job directory (children: its listing,
// nil to list it), with what every job under its base references.
func (o *options) collectJob(ctx context.Context, fsys vfs.FileSystem, dir vfs.Path, children []vfs.FileStatus, retain int, refs *References) (*JobGC, error) {
	js, err := o.scanJob(ctx, fsys, dir, children, scanSizes)
	if err != nil {
		return nil, err
	}
	j := &JobGC{Dir: dir}
	// The job's chk-N directories, by id: the only ones removed.
	chks := js.chks()
	j.Checkpoints = chks
	var withMetadata int
	for _, s := range chks {
		if s.HasMetadata {
			withMetadata++
		}
	}
	if withMetadata == 0 {
		return j, nil // nothing completed: everything may still be in progress
	}
	// The completed checkpoints before older go: the newest retain stay.
	older := 0
	if withMetadata > retain {
		older = len(chks)
		for kept := 0; older > 0 && kept < retain; {
			older--
			if chks[older].Completed {
				kept++
			}
		}
	}
	rule := newProgressRule(chks)
	blind := refs.BlindErr(dir)
	pinned := o.pinnedFiles(ctx, js.snapshots[js.checkpoints:], js.metadata[js.checkpoints:])
	blocked := o.unresolvedIn(ctx, refs, js.snapshots, js.metadata)
	for i, s := range chks {
		r := DiscardReport{Dir: s.Dir, CheckpointID: s.CheckpointID}
		switch {
		case s.Link:
			r.Kept = "a symbolic link, not followed: what it leads to is not this job's"
		case s.Err != nil:
			if withMetadata <= retain {
				continue
			}
			r.Undecodable = s.Err
		case s.Completed && i < older:
		case !s.HasMetadata && rule.inProgress(s.CheckpointID, s.ModTime) == "":
			r.Leftover = true
		default:
			continue // retained, or may be in progress
		}
		m := js.metadata[i]
		if r.Removed() {
			r.Kept = o.crossJobGuard(ctx, js.tree, &s, m, refs, blind)
		}
		if r.Removed() {
			r.Kept = o.pinnedGuard(ctx, &s, m, pinned)
		}
		if r.Removed() {
			if err := o.deleteListed(ctx, fsys, &r, m, js.tree, vfs.Version{}, blocked); err != nil {
				return j, err
			}
		}
		j.Reports = append(j.Reports, r)
	}
	slices.SortStableFunc(j.Reports, func(x, y DiscardReport) int { return cmp.Compare(x.CheckpointID, y.CheckpointID) })
	return j, nil
}

// crossJobGuard says why the checkpoint s (whose _metadata decoded to m, nil
// for a leftover) must stay because of another job, "" when it may go: a
// file in it, or an entropy-injected file of it, is referenced by a snapshot
// of another job, or refs is blind. t lists s's directory; nil when it was
// not listed (RetainCheckpoints), the files refs names in s's directory are
// taken instead.
func (o *options) crossJobGuard(ctx context.Context, t *tree, s *Snapshot, m *metadata.Metadata, refs *References, blind error) string {
	if blind != nil {
		return blind.Error() + ": another job may reference its files"
	}
	job := jobDirOf(s.Dir)
	files := referencedFiles(ctx, o, refs.By, s, m)
	if t != nil {
		files = o.checkpointFiles(ctx, t, s, m)
	}
	for _, f := range files {
		if by := refs.Outside(job, o.keyOf(ctx, f)); len(by) > 0 {
			return fmt.Sprintf("%s references its file %s (a job restored from it)", by[0].Redacted(), f.Redacted())
		}
	}
	return ""
}

// checkpointFiles returns the files removing the checkpoint s (whose
// _metadata decoded to m, nil for a leftover) would delete: those t listed
// in its directory and its entropy-injected files elsewhere in the job.
func (o *options) checkpointFiles(ctx context.Context, t *tree, s *Snapshot, m *metadata.Metadata) []vfs.Path {
	var files []vfs.Path
	for _, f := range t.files {
		if within(s.Dir, f.Path) {
			files = append(files, f.Path)
		}
	}
	if m != nil {
		inJob, _ := o.exclusiveFiles(ctx, m, s.Dir)
		files = append(files, inJob...)
	}
	return files
}

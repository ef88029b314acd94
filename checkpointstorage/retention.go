package checkpointstorage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vfskit/vfskit/vfs"
)

// CheckpointInfo describes a completed checkpoint found in a job's checkpoints
// directory.
type CheckpointInfo struct {
	// CheckpointID is N of chk-N.
	CheckpointID int64
	// Dir is the checkpoint directory, fully qualified: a pointer LoadCheckpoint
	// accepts.
	Dir vfs.Path
	// MetadataPath is Dir/_metadata.
	MetadataPath vfs.Path
	// MetadataSize is the size of _metadata in bytes.
	MetadataSize int64
	// ModTime is the modification time of _metadata (when it was published).
	ModTime time.Time
}

// ParseCheckpointDirName returns N for a directory name chk-N (N ≥ 0, decimal,
// as CheckpointDir writes it) and false for any other name.
func ParseCheckpointDirName(name string) (int64, bool) {
	s, ok := strings.CutPrefix(name, CheckpointDirPrefix)
	if !ok || s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 0 || s[0] == '+' {
		return 0, false
	}
	return id, true
}

// ParseJobDirName returns the job whose checkpoints directory has this name
// (32 lowercase hex characters, as JobCheckpointsDir writes it) and false for
// any other name.
func ParseJobDirName(name string) (JobID, bool) {
	id, err := ParseJobID(name)
	if err != nil || id.String() != name {
		return JobID{}, false
	}
	return id, true
}

// ListJobs returns the jobs that have a directory under a checkpoints base
// directory, sorted. A missing base directory has no jobs.
func ListJobs(ctx context.Context, base vfs.Path, opts ...Option) ([]JobID, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	fsys, err := o.registry.GetPath(ctx, base)
	if err != nil {
		return nil, err
	}
	entries, err := fsys.List(ctx, base)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var jobs []JobID
	for _, e := range entries {
		if !e.IsDir {
			continue
		}
		if id, ok := ParseJobDirName(e.Name()); ok {
			jobs = append(jobs, id)
		}
	}
	return jobs, nil
}

// ListCompletedCheckpoints returns the completed checkpoints in a job's
// checkpoints directory (<base>/<job id>, see JobCheckpointsDir): the chk-N
// directories whose _metadata is there and decodes, in vfskit's format or
// Flink's, sorted by checkpoint id, oldest first. Directories without
// _metadata (in progress or failed) and those whose _metadata cannot be
// decoded are skipped: the checkpoints listed are the ones TakeInventory
// reports as Completed and RetainCheckpoints counts, decided by the same code.
// A missing directory has no checkpoints.
//
// It costs one LIST of the job's directory (paginated on an object store) and
// one read of each chk-N's _metadata, whose response gives its size and
// modification time (vfs.StatStream): no HEAD on the object stores, no Stat
// on file:// and memory:// (their streams tell the open file's status).
// Only over a file system whose streams do not tell their status
// (vfs.StreamStater) does each completed checkpoint add a Stat.
func ListCompletedCheckpoints(ctx context.Context, jobCheckpointsDir vfs.Path, opts ...Option) ([]CheckpointInfo, error) {
	o, fsys, jobDir, err := qualified(ctx, jobCheckpointsDir, opts)
	if err != nil {
		return nil, err
	}
	chks, err := listCheckpointDirs(ctx, fsys, jobDir, nil)
	if err != nil {
		return nil, err
	}
	var infos []CheckpointInfo
	for i := range chks {
		info, ok, err := o.completedCheckpoint(ctx, fsys, &chks[i])
		if err != nil {
			return nil, err
		}
		if ok {
			infos = append(infos, info)
		}
	}
	return infos, nil
}

// completedCheckpoint reads the _metadata of the checkpoint s (see
// readSnapshotMetadata) and describes s when it is completed.
func (o *options) completedCheckpoint(ctx context.Context, fsys vfs.FileSystem, s *Snapshot) (CheckpointInfo, bool, error) {
	var st vfs.FileStatus
	m, err := o.readSnapshotStatus(ctx, fsys, s, &st, nil)
	if err != nil || m == nil {
		return CheckpointInfo{}, false, err
	}
	return CheckpointInfo{CheckpointID: s.CheckpointID, Dir: s.Dir, MetadataPath: s.Dir.Join(MetadataFileName),
		MetadataSize: st.Size, ModTime: st.ModTime}, true, nil
}

// LatestCompletedCheckpoint returns the completed checkpoint with the highest
// id in a job's checkpoints directory, as ListCompletedCheckpoints finds them
// (its _metadata decodes). Without any it fails with an error that errors.Is
// fs.ErrNotExist.
//
// It costs one LIST of the job's directory (paginated on an object store) and
// reads the chk-N directories' _metadata newest first, stopping at the first
// that decodes: one read when the newest checkpoint is completed, whatever
// the number of older ones (plus a Stat where ListCompletedCheckpoints needs
// one).
func LatestCompletedCheckpoint(ctx context.Context, jobCheckpointsDir vfs.Path, opts ...Option) (CheckpointInfo, error) {
	o, fsys, jobDir, err := qualified(ctx, jobCheckpointsDir, opts)
	if err != nil {
		return CheckpointInfo{}, err
	}
	chks, err := listCheckpointDirs(ctx, fsys, jobDir, nil)
	if err != nil {
		return CheckpointInfo{}, err
	}
	for i := len(chks) - 1; i >= 0; i-- {
		info, ok, err := o.completedCheckpoint(ctx, fsys, &chks[i])
		if err != nil || ok {
			return info, err
		}
	}
	return CheckpointInfo{}, &fs.PathError{Op: "find latest checkpoint", Path: jobCheckpointsDir.Redacted(),
		Err: fmt.Errorf("no completed checkpoint (no chk-N directory with a %s that decodes): %w", MetadataFileName, fs.ErrNotExist)}
}

// RetainCheckpoints keeps the newest retain completed checkpoints of a job whose
// metadata decodes and discards the older ones, oldest first, as
// DiscardCheckpoint does. A checkpoint whose _metadata cannot be decoded
// (corrupted, or of a format version this build does not read) is never deleted and does not
// count towards retain: it is kept and reported with DiscardReport.Undecodable
// set, so the retained checkpoints are ones that restore. Which checkpoints are
// completed is decided by the same code as for TakeInventory and
// ListCompletedCheckpoints, in either format: Flink's checkpoints that decode
// count and are discarded like vfskit's.
//
// A checkpoint holding a file that another job under the same base directory
// references (the base is the parent of jobCheckpointsDir, as for
// CollectGarbage; see ScanReferences: a job restored from this one in CLAIM
// mode references its shared/ files and may reference its chk-N files), or
// that another snapshot in the job's directory references (a savepoint-* or a
// directory of any name holding a _metadata, found as CollectGarbage finds
// them), is kept, with DiscardReport.Kept saying which snapshot references
// which file. While a job directory under the base cannot be listed or a
// _metadata there cannot be decoded, every checkpoint is kept, Kept saying
// which it cannot see. A job under another base directory is not seen.
//
// It returns one report per checkpoint discarded or kept (undecodable, or
// referenced by another snapshot), oldest first (on error, those handled
// before it); nothing when the job has no more than retain chk-N directories
// holding a _metadata. What each discard deletes,
// and the references outside the job directory it leaves alone, are in the
// reports (see DiscardCheckpoint): nothing outside the job's directory is ever
// deleted, whatever a _metadata says. Each discard lists the checkpoint's
// directory and deletes only the files it listed, each only at the version
// seen, never recursively; what changed or appeared meanwhile stays and its
// report says so (DiscardReport.Left, Special: Partial; Kept when its
// _metadata changed after it was read), which is not an error: retention goes
// on with the next checkpoint. With WithDryRun nothing is deleted and
// the reports say what would be. Checkpoints in progress (no _metadata),
// savepoints and shared state are not touched. retain must be ≥ 1
// (fs.ErrInvalid otherwise). Pass the options the checkpoints were written with
// (WithEntropyInjection in particular).
//
// It costs one LIST of the job's directory (paginated on an object store) and
// one read of each chk-N's _metadata, which also tells the version that a
// discard deletes: no Stat, and no _metadata is read twice. When a checkpoint
// is to go, it also lists the base directory and every other job directory in
// it and reads their snapshots' _metadata (as ScanReferences), and lists
// every other directory below the job's (shared/, taskowned/, savepoints: one
// LIST per directory) and reads the _metadata found there, to know what the
// other jobs and snapshots reference. Each checkpoint
// discarded then costs one LIST per directory in it, one conditional delete
// per file (vfs.DeleteVersion) and one delete per directory.
func RetainCheckpoints(ctx context.Context, jobCheckpointsDir vfs.Path, retain int, opts ...Option) ([]DiscardReport, error) {
	if retain < 1 {
		return nil, fmt.Errorf("checkpointstorage: must retain at least 1 checkpoint (got %d): %w", retain, fs.ErrInvalid)
	}
	o, fsys, jobDir, err := qualified(ctx, jobCheckpointsDir, opts)
	if err != nil {
		return nil, err
	}
	children, err := fsys.List(ctx, jobDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case children == nil:
		children = []vfs.FileStatus{}
	}
	js, err := o.scanJob(ctx, fsys, jobDir, children, scanCheckpoints)
	if err != nil {
		return nil, err
	}
	var withMetadata int
	for _, s := range js.snapshots {
		if s.HasMetadata {
			withMetadata++
		}
	}
	if withMetadata <= retain {
		return nil, nil
	}
	// Newest first: the first retain completed checkpoints stay; the older
	// ones go, oldest first.
	older := len(js.snapshots)
	for kept := 0; older > 0 && kept < retain; {
		older--
		if js.snapshots[older].Completed {
			kept++
		}
	}
	// What other jobs under the base (the job directory's parent) and the
	// job's other snapshots reference keeps the checkpoint holding it, as in
	// CollectGarbage.
	var pinned map[vfs.Path]vfs.Path
	refs, blind := &References{}, error(nil)
	blocked := unresolvedNames{}
	if slices.ContainsFunc(js.snapshots[:older], func(s Snapshot) bool { return s.Completed }) {
		if refs, err = o.scanReferences(ctx, fsys, jobDir.Parent(), jobDir); err != nil {
			return nil, err
		}
		blind = refs.BlindErr(jobDir)
		if pinned, err = o.jobPins(ctx, fsys, jobDir, children); err != nil {
			return nil, err
		}
		blocked = o.unresolvedIn(ctx, refs, js.snapshots, js.metadata)
	}
	var reports []DiscardReport
	for i, s := range js.snapshots {
		r := DiscardReport{Dir: s.Dir, CheckpointID: s.CheckpointID, Undecodable: s.Err}
		switch {
		case s.Err != nil:
			reports = append(reports, r)
		case i >= older || !s.Completed:
		default:
			if r.Kept = o.crossJobGuard(ctx, nil, &s, js.metadata[i], refs, blind); r.Removed() {
				r.Kept = o.pinnedGuard(ctx, &s, js.metadata[i], pinned)
			}
			if r.Removed() {
				err := o.removeCheckpoint(ctx, fsys, &r, js.metadata[i], js.versions[i], blocked)
				if err != nil {
					return reports, err
				}
			}
			reports = append(reports, r)
		}
	}
	return reports, nil
}

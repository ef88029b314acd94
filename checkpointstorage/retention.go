package checkpointstorage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
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
// directories that hold a _metadata file, sorted by checkpoint id, oldest first.
// Directories without _metadata (in progress or failed) are skipped. A missing
// directory has no checkpoints. It costs one LIST plus one Stat per chk-N
// directory.
func ListCompletedCheckpoints(ctx context.Context, jobCheckpointsDir vfs.Path, opts ...Option) ([]CheckpointInfo, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return listCompleted(ctx, jobCheckpointsDir, o)
}

func listCompleted(ctx context.Context, jobDir vfs.Path, o options) ([]CheckpointInfo, error) {
	fsys, err := o.registry.GetPath(ctx, jobDir)
	if err != nil {
		return nil, err
	}
	jobDir = jobDir.MakeQualified(fsys)
	entries, err := fsys.List(ctx, jobDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var infos []CheckpointInfo
	for _, e := range entries {
		id, ok := ParseCheckpointDirName(e.Name())
		if !e.IsDir || !ok {
			continue
		}
		dir := jobDir.Join(e.Name())
		mp := dir.Join(MetadataFileName)
		st, err := fsys.Stat(ctx, mp)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && st.IsDir) {
			continue
		}
		if err != nil {
			return nil, err
		}
		infos = append(infos, CheckpointInfo{CheckpointID: id, Dir: dir, MetadataPath: mp, MetadataSize: st.Size, ModTime: st.ModTime})
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].CheckpointID < infos[j].CheckpointID })
	return infos, nil
}

// LatestCompletedCheckpoint returns the completed checkpoint with the highest id
// in a job's checkpoints directory. Without any it fails with an error that
// errors.Is fs.ErrNotExist.
func LatestCompletedCheckpoint(ctx context.Context, jobCheckpointsDir vfs.Path, opts ...Option) (CheckpointInfo, error) {
	infos, err := ListCompletedCheckpoints(ctx, jobCheckpointsDir, opts...)
	if err != nil {
		return CheckpointInfo{}, err
	}
	if len(infos) == 0 {
		return CheckpointInfo{}, &fs.PathError{Op: "find latest checkpoint", Path: jobCheckpointsDir.Redacted(),
			Err: fmt.Errorf("no completed checkpoint (no chk-N directory with %s): %w", MetadataFileName, fs.ErrNotExist)}
	}
	return infos[len(infos)-1], nil
}

// RetainCheckpoints keeps the newest retain completed checkpoints of a job whose
// metadata decodes and discards the older ones with DiscardCheckpoint, oldest
// first. A checkpoint whose _metadata cannot be decoded (corrupted, a newer
// format, another program's such as Flink's) is never deleted and does not count
// towards retain: it is kept and reported with DiscardReport.Undecodable set, so
// the retained checkpoints are ones that restore.
//
// It returns one report per checkpoint discarded or kept as undecodable, oldest
// first (on error, those handled before it). What each discard deletes, and the
// references outside the job directory it leaves alone, are in the reports (see
// DiscardCheckpoint). With WithDryRun nothing is deleted and the reports say what
// would be. Checkpoints in progress (no _metadata) and shared state are not
// touched. retain must be ≥ 1 (fs.ErrInvalid otherwise). Pass the options the
// checkpoints were written with (WithEntropyInjection in particular).
//
// It costs one LIST, a Stat per checkpoint, and a read of the _metadata of each
// checkpoint it discards or keeps.
func RetainCheckpoints(ctx context.Context, jobCheckpointsDir vfs.Path, retain int, opts ...Option) ([]DiscardReport, error) {
	if retain < 1 {
		return nil, fmt.Errorf("checkpointstorage: must retain at least 1 checkpoint (got %d): %w", retain, fs.ErrInvalid)
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	infos, err := listCompleted(ctx, jobCheckpointsDir, o)
	if err != nil {
		return nil, err
	}
	if len(infos) <= retain {
		return nil, nil
	}
	fsys, err := o.registry.GetPath(ctx, jobCheckpointsDir)
	if err != nil {
		return nil, err
	}
	// Newest first: the first retain checkpoints that decode stay; the older
	// ones go, oldest first.
	undecodable := map[int]error{}
	older := len(infos)
	for kept := 0; older > 0 && kept < retain; {
		older--
		_, err := readCheckpointMetadata(ctx, fsys, infos[older].Dir)
		switch {
		case isUndecodable(err):
			undecodable[older] = err
		case errors.Is(err, fs.ErrNotExist): // vanished meanwhile: nothing to keep
		case err != nil:
			return nil, err
		default:
			kept++
		}
	}
	var reports []DiscardReport
	for i, info := range infos {
		if i >= older {
			if err := undecodable[i]; err != nil {
				reports = append(reports, DiscardReport{Dir: info.Dir, CheckpointID: info.CheckpointID, Undecodable: err})
			}
			continue
		}
		r, err := discardCheckpoint(ctx, fsys, info.Dir, o)
		if err != nil && r.Undecodable == nil {
			return reports, err
		}
		reports = append(reports, r)
	}
	return reports, nil
}

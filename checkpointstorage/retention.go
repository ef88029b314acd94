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
	fsys, err := o.registry.Get(ctx, base.String())
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
	fsys, err := o.registry.Get(ctx, jobDir.String())
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
		return CheckpointInfo{}, &fs.PathError{Op: "find latest checkpoint", Path: jobCheckpointsDir.String(),
			Err: fmt.Errorf("no completed checkpoint (no chk-N directory with %s): %w", MetadataFileName, fs.ErrNotExist)}
	}
	return infos[len(infos)-1], nil
}

// RetainCheckpoints keeps the newest retain completed checkpoints of a job and
// discards the older ones with DiscardCheckpoint, oldest first. It returns the
// discarded checkpoints (on error, those discarded before it). Checkpoints in progress (no _metadata) and shared state
// are not touched. retain must be ≥ 1 (fs.ErrInvalid otherwise): the latest
// checkpoint is never discarded.
func RetainCheckpoints(ctx context.Context, jobCheckpointsDir vfs.Path, retain int, opts ...Option) ([]CheckpointInfo, error) {
	if retain < 1 {
		return nil, fmt.Errorf("checkpointstorage: must retain at least 1 checkpoint (got %d): %w", retain, fs.ErrInvalid)
	}
	infos, err := ListCompletedCheckpoints(ctx, jobCheckpointsDir, opts...)
	if err != nil {
		return nil, err
	}
	if len(infos) <= retain {
		return nil, nil
	}
	var discarded []CheckpointInfo
	for _, info := range infos[:len(infos)-retain] {
		if err := DiscardCheckpoint(ctx, info.Dir, opts...); err != nil {
			return discarded, err
		}
		discarded = append(discarded, info)
	}
	return discarded, nil
}

// DiscardCheckpoint deletes a completed checkpoint. It reads the metadata, deletes
// _metadata first (so a crash half-way leaves an incomplete checkpoint, never a
// completed one with missing state), then the exclusive state files the metadata
// lists outside the directory (such as files with injected entropy), then the
// directory itself, recursively. Shared state is not touched. When the metadata
// cannot be decoded (corrupted), only the directory is deleted. A missing
// directory is not an error. As a guard against deleting unrelated trees, a
// directory that holds no _metadata and is not named chk-N is refused with
// fs.ErrInvalid, and so is the root of a file system (a bucket), even with
// _metadata in it.
func DiscardCheckpoint(ctx context.Context, checkpointDir vfs.Path, opts ...Option) error {
	o, err := buildOptions(opts)
	if err != nil {
		return err
	}
	fsys, err := o.registry.Get(ctx, checkpointDir.String())
	if err != nil {
		return err
	}
	checkpointDir = checkpointDir.MakeQualified(fsys)
	if checkpointDir.Depth() == 0 {
		return &fs.PathError{Op: "discard checkpoint", Path: checkpointDir.String(),
			Err: fmt.Errorf("refusing to discard the root of a file system: %w", fs.ErrInvalid)}
	}
	metadataPath := checkpointDir.Join(MetadataFileName)
	data, err := vfs.ReadFile(ctx, fsys, metadataPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, vfs.ErrIsDir) {
		return err
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, vfs.ErrIsDir) {
		if _, ok := ParseCheckpointDirName(checkpointDir.Name()); !ok {
			exists, serr := vfs.Exists(ctx, fsys, checkpointDir)
			if serr != nil {
				return serr
			}
			if exists {
				return &fs.PathError{Op: "discard checkpoint", Path: checkpointDir.String(),
					Err: fmt.Errorf("not a checkpoint directory (no %s, not named %sN): %w", MetadataFileName, CheckpointDirPrefix, fs.ErrInvalid)}
			}
		}
	}
	var external []*FileStateHandle
	if err == nil {
		if m, err := UnmarshalCheckpointMetadata(data, checkpointDir, opts...); err == nil {
			for _, h := range m.Handles() {
				fh, ok := h.(*FileStateHandle)
				if ok && fh.Scope == Exclusive && fh.FilePath.Parent() != checkpointDir {
					external = append(external, fh) // relative and in-directory files go with the directory
				}
			}
		}
		if err := fsys.Delete(ctx, metadataPath, false); err != nil {
			return err
		}
	}
	for _, fh := range external {
		if err := fh.DiscardState(ctx); err != nil {
			return err
		}
	}
	return fsys.Delete(ctx, checkpointDir, true)
}

package checkpointstorage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// DiscardReport says what discarding one checkpoint deleted or, with
// WithDryRun, would delete, and what it left alone.
type DiscardReport struct {
	// Dir is the checkpoint (or savepoint) directory, fully qualified. Unless
	// Undecodable is set, it is deleted with everything in it, _metadata first
	// (CollectGarbage: with everything it listed in it, see Left).
	Dir vfs.Path
	// CheckpointID is N of chk-N, or -1 when Dir has another name.
	CheckpointID int64
	// Files are the exclusive state files the metadata names outside Dir but
	// inside the job's directory (entropy-injected files): deleted after
	// _metadata and before Dir.
	Files []vfs.Path
	// Outside are the exclusive state files the metadata names outside the
	// job's directory (another bucket, scheme or directory, a local file):
	// never deleted, whatever the metadata says.
	Outside []vfs.Path
	// Undecodable is set when Dir has a _metadata that cannot be decoded (it is
	// corrupted, or of a format version this build does not read): then nothing was
	// deleted and the checkpoint was kept.
	Undecodable error
	// Leftover is set for a chk-N directory without _metadata removed as a
	// failed checkpoint's leftover (CollectGarbage).
	Leftover bool
	// Kept, when not empty, says why the checkpoint was kept although it
	// would otherwise have been removed (a symbolic link, or state another
	// job references: see CollectGarbage). Nothing was deleted.
	Kept string
	// Left, for CollectGarbage, are the files in Dir it did not delete because
	// they changed or appeared after it listed them: the checkpoint was
	// partly removed, and Dir stays with them.
	Left []vfs.Path
}

// Partial reports whether the checkpoint was only partly removed (Left).
func (r DiscardReport) Partial() bool { return len(r.Left) > 0 }

// Removed reports whether the checkpoint was removed (with WithDryRun: would
// be): it was neither Undecodable nor Kept.
func (r DiscardReport) Removed() bool { return r.Undecodable == nil && r.Kept == "" }

// DiscardCheckpoint deletes a completed checkpoint and reports what it deleted.
// It reads the metadata, deletes _metadata first (so a crash half-way leaves an
// incomplete checkpoint, never a completed one with missing state), then the
// exclusive state files the metadata lists outside the directory but inside the
// job's directory (such as files with injected entropy; pass the
// WithEntropyInjection the checkpoints were written with), then the directory
// itself, recursively. A missing directory is not an error.
//
// Deletes are confined to the job: the job's directory is the parent of a chk-N
// directory (<base>/<job id>) and, for any other directory (a savepoint), the
// directory itself. A file the metadata names elsewhere — compared on the exact
// qualified path: scheme, authority, and a path prefix ending at a segment
// boundary — is listed in DiscardReport.Outside and left in place. Shared state
// is never deleted.
//
// When _metadata exists but cannot be decoded, nothing is deleted: the report
// has Undecodable set and the error (a *fs.PathError) wraps the decoder's
// (ErrCorruptMetadata, ErrUnsupportedMetadataVersion). As guards against
// deleting unrelated trees, a directory that holds no _metadata and is not named
// chk-N is refused with fs.ErrInvalid, and so is the root of a file system (a
// bucket), even with _metadata in it, and a directory that is a symbolic link
// (file://: fs.ErrInvalid, with Kept set): neither it nor what it leads to is
// touched. With WithDryRun nothing is deleted and the report says what would
// be.
func DiscardCheckpoint(ctx context.Context, checkpointDir vfs.Path, opts ...Option) (DiscardReport, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return DiscardReport{Dir: checkpointDir, CheckpointID: -1}, err
	}
	fsys, err := o.registry.GetPath(ctx, checkpointDir)
	if err != nil {
		return DiscardReport{Dir: checkpointDir, CheckpointID: -1}, err
	}
	return discardCheckpoint(ctx, fsys, checkpointDir, o)
}

func discardCheckpoint(ctx context.Context, fsys vfs.FileSystem, checkpointDir vfs.Path, o options) (DiscardReport, error) {
	checkpointDir = checkpointDir.MakeQualified(fsys)
	r := DiscardReport{Dir: checkpointDir, CheckpointID: -1}
	id, isChk := ParseCheckpointDirName(checkpointDir.Name())
	if isChk {
		r.CheckpointID = id
	}
	if checkpointDir.Depth() == 0 {
		return r, &fs.PathError{Op: "discard checkpoint", Path: checkpointDir.Redacted(),
			Err: fmt.Errorf("refusing to discard the root of a file system: %w", fs.ErrInvalid)}
	}
	if link, err := vfs.IsSymlink(ctx, fsys, checkpointDir); err != nil || link {
		if link {
			r.Kept = "a symbolic link, not followed: what it leads to is not this job's"
			err = errLink("discard checkpoint", checkpointDir)
		}
		return r, err
	}
	// Whether it is a completed checkpoint is decided as for the inventory.
	s := Snapshot{Dir: checkpointDir, CheckpointID: r.CheckpointID, HasMetadata: true}
	m, err := o.readSnapshotMetadata(ctx, fsys, &s)
	switch {
	case err != nil:
		return r, err
	case s.Err != nil:
		r.Undecodable = s.Err
		return r, &fs.PathError{Op: "discard checkpoint", Path: checkpointDir.Join(MetadataFileName).Redacted(),
			Err: fmt.Errorf("refusing to delete a checkpoint whose metadata cannot be decoded (corrupted, or in a format version this build does not read): %w", s.Err)}
	case !s.HasMetadata && !isChk:
		exists, err := vfs.Exists(ctx, fsys, checkpointDir)
		if err != nil {
			return r, err
		}
		if exists {
			return r, &fs.PathError{Op: "discard checkpoint", Path: checkpointDir.Redacted(),
				Err: fmt.Errorf("not a checkpoint directory (no %s, not named %sN): %w", MetadataFileName, CheckpointDirPrefix, fs.ErrInvalid)}
		}
	}
	return r, o.deleteCheckpoint(ctx, fsys, &r, m)
}

// deleteCheckpoint deletes the checkpoint directory r.Dir, whose _metadata
// decoded to m (nil: it has none): _metadata first, then the exclusive state
// files m names outside r.Dir but inside the job's directory, then r.Dir
// recursively. It fills in r.Files and r.Outside; with WithDryRun it deletes
// nothing.
func (o *options) deleteCheckpoint(ctx context.Context, fsys vfs.FileSystem, r *DiscardReport, m *metadata.Metadata) error {
	if m != nil {
		r.Files, r.Outside = o.exclusiveFiles(m, r.Dir)
	}
	if o.dryRun {
		return nil
	}
	if m != nil {
		if err := fsys.Delete(ctx, r.Dir.Join(MetadataFileName), false); err != nil {
			return err
		}
	}
	for _, p := range r.Files {
		if err := fsys.Delete(ctx, p, false); err != nil {
			return err
		}
	}
	return fsys.Delete(ctx, r.Dir, true)
}

// isUndecodable reports whether err says that metadata was read but cannot be
// decoded (as opposed to an I/O error or a missing file).
func isUndecodable(err error) bool {
	return errors.Is(err, metadata.ErrCorrupt) || errors.Is(err, metadata.ErrUnsupportedVersion)
}

// WithDryRun makes DiscardCheckpoint and RetainCheckpoints (and the CLI's
// checkpoints gc) read and report what they would delete without deleting
// anything. Other functions ignore it.
func WithDryRun() Option {
	return func(o *options) { o.dryRun = true }
}

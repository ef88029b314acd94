package checkpointstorage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// DiscardReport says what discarding one checkpoint deleted or, with
// WithDryRun, would delete, and what it left alone.
type DiscardReport struct {
	// Dir is the checkpoint (or savepoint) directory, fully qualified. Unless
	// Undecodable or Kept is set, the files listed in it are deleted, each
	// only as it was listed, _metadata first, and then its directories
	// that this empties: see Left and Special for what stays.
	Dir vfs.Path
	// CheckpointID is N of chk-N, or -1 when Dir has another name.
	CheckpointID int64
	// Files are the exclusive state files the metadata names outside Dir but
	// inside the job's directory (entropy-injected files): deleted after
	// _metadata and before the files in Dir.
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
	// would otherwise have been removed (a symbolic link, state another job
	// references, a _metadata that changed after it was read: see
	// CollectGarbage). Nothing was deleted.
	Kept string
	// Left are the files in Dir (or Files) that were not deleted because
	// they changed or appeared after they were listed (a file of Files:
	// its size is not the one the metadata records; in Dir, also links to
	// directories, never followed): the checkpoint was partly removed, and
	// Dir stays with them.
	Left []vfs.Path
	// Special are the files in Dir that are neither regular files nor
	// directories (FIFOs, devices, sockets): never opened nor deleted, so
	// the checkpoint was partly removed, and Dir stays with them.
	Special []vfs.Path
}

// Partial reports whether the checkpoint was only partly removed: files in
// it stay (Left, Special).
func (r DiscardReport) Partial() bool { return len(r.Left) > 0 || len(r.Special) > 0 }

// Removed reports whether the checkpoint was removed (with WithDryRun: would
// be), wholly or partly (Partial): it was neither Undecodable nor Kept.
func (r DiscardReport) Removed() bool { return r.Undecodable == nil && r.Kept == "" }

// DiscardCheckpoint deletes a completed checkpoint and reports what it deleted.
// It reads the metadata, then lists the directory (symbolic links are not
// followed) and deletes exactly the files it listed, one by one, each only if
// it is still the version seen (vfs.DeleteVersion: the _metadata whose bytes
// were decoded, the other files as listed): _metadata first (so a crash
// half-way leaves an incomplete checkpoint, never a completed one with missing
// state), then the exclusive state files the metadata lists outside the
// directory but inside the job's directory (such as files with injected
// entropy; pass the WithEntropyInjection the checkpoints were written with),
// then the files in the directory, and last the directories this empties,
// deepest first, without recursion. Nothing is deleted recursively. A missing
// directory is not an error.
//
// What it did not identify stays: a file written or changed after the listing
// is named in DiscardReport.Left, a FIFO, device or socket (never opened) in
// DiscardReport.Special, and the directory stays with them; a _metadata that
// changed after it was read keeps the whole checkpoint (DiscardReport.Kept).
// The error then names them and wraps vfs.ErrChanged (Left, Kept) or
// vfs.ErrNotRegular (Special).
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
	var seen vfs.Version
	m, err := o.readSnapshotStatus(ctx, fsys, &s, nil, &seen)
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
	if err := o.removeCheckpoint(ctx, fsys, &r, m, seen, nil); err != nil {
		return r, err
	}
	return r, leftError(r)
}

// leftError is DiscardCheckpoint's error for a checkpoint it did not wholly
// remove although it set out to (Kept, Left, Special), nil for one it did.
func leftError(r DiscardReport) error {
	var errs []error
	if r.Kept != "" {
		errs = append(errs, fmt.Errorf("%w: kept: %s", vfs.ErrChanged, r.Kept))
	}
	if len(r.Left) > 0 {
		errs = append(errs, fmt.Errorf("%w: partly removed: %d file(s) written or changed after they were listed stay:%s", vfs.ErrChanged, len(r.Left), pathLines(r.Left)))
	}
	if len(r.Special) > 0 {
		errs = append(errs, fmt.Errorf("%w: partly removed: %d FIFO(s), device(s) or socket(s) stay, never opened:%s", vfs.ErrNotRegular, len(r.Special), pathLines(r.Special)))
	}
	if len(errs) == 0 {
		return nil
	}
	return &fs.PathError{Op: "discard checkpoint", Path: r.Dir.Redacted(), Err: errors.Join(errs...)}
}

// pathLines lists ps, one redacted path a line.
func pathLines(ps []vfs.Path) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("\n  ")
		b.WriteString(p.Redacted())
	}
	return b.String()
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

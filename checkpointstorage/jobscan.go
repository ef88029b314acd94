package checkpointstorage

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"slices"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// scanMode says how much of a job's directory scanJob lists.
type scanMode int

const (
	// scanSizes lists every directory below the job's, so the job and each
	// snapshot get their sizes, file counts and modification times
	// (TakeInventory, AuditJob).
	scanSizes scanMode = iota
	// scanCheckpoints lists the job's directory only and looks for each
	// chk-N's _metadata by reading it, which it must do anyway to decode it:
	// one LIST plus one GET per chk-N directory on an object store. The
	// snapshots have no sizes, and savepoint-* directories are left out
	// (RetainCheckpoints; ListCompletedCheckpoints and
	// LatestCompletedCheckpoint use its two parts, listCheckpointDirs and
	// readSnapshotMetadata, directly).
	scanCheckpoints
)

// jobScan is a job's checkpoints directory as scanJob found it.
type jobScan struct {
	// tree is everything below the job's directory (scanSizes only).
	tree *tree
	// snapshots are the job's chk-N directories (those directly in its
	// directory) by id, then, with scanSizes, every other snapshot directory
	// below it in path order: savepoint-* ones and any directory holding a
	// _metadata, whatever its name and however deep (tree.snapshots).
	snapshots []Snapshot
	// checkpoints counts the chk-N directories that snapshots starts with:
	// the only ones retention removes and the in-progress rule judges by.
	checkpoints int
	// metadata holds each snapshot's decoded _metadata, nil unless the
	// snapshot is Completed.
	metadata []*metadata.Metadata
	// versions holds the version of each decoded _metadata, the one whose
	// bytes were decoded (scanCheckpoints only: scanSizes lists every file,
	// with its version, before it reads one).
	versions []vfs.Version
}

// scanJob takes stock of a job's checkpoints directory (<base>/<job id>;
// children is its listing, nil to list it): which of its directories are
// checkpoints and savepoints, and which of those are completed — their
// _metadata decodes, in either format — with the decoded metadata. It is the
// one place that decides what a completed checkpoint is for the inventory,
// the audit, listing and retention, so they always agree. A _metadata that
// cannot be decoded is reported in Snapshot.Err, not as an error; a missing
// directory has no snapshots.
func (o *options) scanJob(ctx context.Context, fsys vfs.FileSystem, dir vfs.Path, children []vfs.FileStatus, mode scanMode) (*jobScan, error) {
	job := jobOf(dir)
	js := &jobScan{}
	var chks, sps []Snapshot
	if mode == scanSizes {
		t, err := scanTree(ctx, fsys, dir, children)
		if err != nil {
			return nil, err
		}
		js.tree = t
		for _, c := range t.dirs[dir] {
			if _, ok := ParseCheckpointDirName(c.Name()); ok && c.IsDir {
				chks = append(chks, t.snapshot(c.Path, job))
			}
		}
		// Every other snapshot directory below the job's, whatever its name
		// and depth (the scan TakeInventory uses): what it holds and
		// references is never taken for a leftover.
		for _, s := range t.snapshots(dir, job) {
			if s.Dir == dir {
				continue
			}
			if _, ok := ParseCheckpointDirName(s.Dir.Name()); ok && s.Dir.Parent() == dir {
				continue // one of chks
			}
			sps = append(sps, s)
		}
		sortByID(chks)
	} else {
		var err error
		if chks, err = listCheckpointDirs(ctx, fsys, dir, children); err != nil { // sorted
			return nil, err
		}
	}
	js.snapshots, js.checkpoints = append(chks, sps...), len(chks)
	if mode == scanCheckpoints {
		js.versions = make([]vfs.Version, len(js.snapshots))
	}
	var err error
	js.metadata, err = o.decodeSnapshots(ctx, fsys, js.snapshots, js.versions)
	if err != nil {
		return nil, err
	}
	return js, nil
}

// chks returns the job's chk-N directories, by id.
func (js *jobScan) chks() []Snapshot { return js.snapshots[:js.checkpoints] }

// listCheckpointDirs returns the chk-N directories of a job's checkpoints
// directory dir (children is its listing, nil to list it: one LIST on an
// object store), sorted by id, as snapshots with HasMetadata set: whether they
// have a _metadata is known once it is read (readSnapshotMetadata). A missing
// directory has none.
func listCheckpointDirs(ctx context.Context, fsys vfs.FileSystem, dir vfs.Path, children []vfs.FileStatus) ([]Snapshot, error) {
	if children == nil {
		var err error
		children, err = fsys.List(ctx, dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
	}
	job := jobOf(dir)
	var chks []Snapshot
	for _, c := range children {
		if id, ok := ParseCheckpointDirName(c.Name()); ok && c.IsDir {
			// A symbolic link leads outside the job: like scanTree, do not
			// look behind it.
			chks = append(chks, Snapshot{Dir: c.Path, Job: job, CheckpointID: id, Link: c.Symlink, HasMetadata: !c.Symlink})
		}
	}
	sortByID(chks)
	return chks, nil
}

// sortByID sorts checkpoint snapshots by id, oldest first.
func sortByID(chks []Snapshot) {
	slices.SortStableFunc(chks, func(x, y Snapshot) int { return cmp.Compare(x.CheckpointID, y.CheckpointID) })
}

// decodeSnapshots reads and decodes the _metadata of each snapshot (see
// readSnapshotMetadata) and returns the decoded ones, nil for the others.
// When versions is not nil (as long as snaps), it sets versions[i] to the
// version of each _metadata decoded.
func (o *options) decodeSnapshots(ctx context.Context, fsys vfs.FileSystem, snaps []Snapshot, versions []vfs.Version) ([]*metadata.Metadata, error) {
	ms := make([]*metadata.Metadata, len(snaps))
	for i := range snaps {
		var v *vfs.Version
		if versions != nil {
			v = &versions[i]
		}
		m, err := o.readSnapshotStatus(ctx, fsys, &snaps[i], nil, v)
		if err != nil {
			return nil, err
		}
		ms[i] = m
	}
	return ms, nil
}

// readSnapshotMetadata reads s's _metadata when s.HasMetadata (set it to
// look for one), decides whether s is completed — the _metadata decodes, in
// either format — fills in what the metadata says and returns it. A
// _metadata that cannot be decoded sets s.Err; one that is missing or a
// directory clears s.HasMetadata; both return nil and no error. Other errors
// are I/O errors.
func (o *options) readSnapshotMetadata(ctx context.Context, fsys vfs.FileSystem, s *Snapshot) (*metadata.Metadata, error) {
	return o.readSnapshotStatus(ctx, fsys, s, nil, nil)
}

// readSnapshotStatus is readSnapshotMetadata that, when s is completed, also
// sets *st (when not nil) to the status of the _metadata it decoded and *v
// (when not nil) to its version (see readMetadataStatus: no request on an
// object store). A _metadata deleted between the read and that status is
// missing, as if deleted before.
func (o *options) readSnapshotStatus(ctx context.Context, fsys vfs.FileSystem, s *Snapshot, st *vfs.FileStatus, v *vfs.Version) (*metadata.Metadata, error) {
	if !s.HasMetadata {
		return nil, nil
	}
	m, err := readMetadataStatus(ctx, fsys, s.Dir.Join(MetadataFileName), st, v)
	switch {
	case isUndecodable(err):
		s.Err = err
		return nil, nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, vfs.ErrIsDir): // none, or deleted meanwhile
		s.HasMetadata = false
		return nil, nil
	case err != nil:
		return nil, err
	}
	s.Completed, s.Format, s.Version, s.Type = true, m.Format, m.Version, m.Type()
	s.MetadataCheckpointID = m.CheckpointID
	if s.CheckpointID < 0 {
		s.CheckpointID = m.CheckpointID
	}
	s.Savepoint = s.Savepoint || s.Type == "savepoint"
	if s.Job == "" && m.Format == metadata.FormatVfskit {
		s.Job = JobID(m.JobID).String()
	}
	return m, nil
}

package checkpointstorage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// SavepointDirPrefix starts the name of a savepoint directory
// (savepoint-<first 6 chars of the job id>-<12 hex>).
const SavepointDirPrefix = savepointDirPrefix

// Snapshot is one checkpoint or savepoint directory found by TakeInventory.
type Snapshot struct {
	// Dir is the directory, qualified: a pointer LoadCheckpoint accepts.
	Dir vfs.Path
	// Job is the job's id: the name of the job directory holding Dir, or the
	// one a vfskit savepoint records; "" when unknown.
	Job string
	// CheckpointID is N of chk-N, or the id the metadata records; -1 when
	// unknown.
	CheckpointID int64
	// MetadataCheckpointID is the checkpoint id the _metadata records, when
	// Completed; it differs from CheckpointID for a chk-N directory holding
	// another checkpoint's _metadata (a copy, a rename).
	MetadataCheckpointID int64
	// Savepoint is set for a directory named savepoint-* or whose metadata
	// says it is a savepoint.
	Savepoint bool
	// Link is set when Dir is a symbolic link (file://): it is reported, and
	// never entered, read or deleted: what it leads to is not the job's.
	Link bool
	// HasMetadata is set when Dir holds a _metadata file.
	HasMetadata bool
	// Completed is set when that _metadata decodes (in either format): only
	// then is the checkpoint one that restores. A chk-N directory without
	// _metadata is in progress or failed.
	Completed bool
	// Err is why a _metadata that is there cannot be decoded (it wraps
	// ErrCorruptMetadata or metadata.ErrUnsupportedVersion).
	Err error
	// Format, Version and Type ("checkpoint", "savepoint", "unknown") are the
	// metadata's, when Completed.
	Format  metadata.Format
	Version int
	Type    string
	// Bytes and Files count the files below Dir, ModTime is the latest
	// modification among them and MetadataModTime that of _metadata.
	Bytes           int64
	Files           int
	ModTime         time.Time
	MetadataModTime time.Time
}

// JobDir is a job's checkpoints directory (<base>/<job id>) found by
// TakeInventory, with what it holds in total (checkpoints, shared/,
// taskowned/).
type JobDir struct {
	ID    JobID
	Dir   vfs.Path
	Bytes int64
	Files int
	// Link is set when Dir is a symbolic link (file://): it is reported,
	// never entered.
	Link bool
}

// Inventory is what a directory of checkpoints holds: see TakeInventory.
type Inventory struct {
	// Dir is the directory taken stock of, qualified.
	Dir vfs.Path
	// Jobs are the job directories, by name.
	Jobs []JobDir
	// Snapshots are the checkpoints (by job, then id) and savepoints (last).
	Snapshots []Snapshot
	// Bytes is the size of every file counted: the jobs' and the snapshots'
	// outside jobs.
	Bytes int64
	// Skipped are the directories looked at that hold no checkpoint or
	// savepoint, each with the reason, in the order found.
	Skipped []SkippedDir
}

// SkippedDir is a directory TakeInventory looked at and did not take for a
// checkpoint, savepoint or job directory, and why.
type SkippedDir struct {
	Dir    vfs.Path
	Reason string
}

// Reasons for SkippedDir.
const (
	// SkipNoMetadata: nothing in it or below it is a checkpoint or savepoint.
	SkipNoMetadata = "no _metadata in it or below it: not a checkpoint, savepoint or job directory"
	// SkipLink: a symbolic link to a directory, which is never entered.
	SkipLink = "a symbolic link: not followed"
)

// TakeInventory takes stock of dir, which may be a checkpoint base directory
// (every job directory <job id> in it, with their chk-N and savepoint-*
// directories, and every checkpoint and savepoint directory in dir's other
// subdirectories, at any depth, such as <base>/savepoints/my-savepoint), a
// job's directory, a savepoint directory, or one checkpoint or savepoint
// directory. A checkpoint or savepoint directory is one named chk-N or
// savepoint-*, or any directory holding a _metadata file, whatever its name.
// The directories that hold none are listed in Inventory.Skipped, with why. Each snapshot's _metadata is read and decoded, in either
// format, so Completed says whether it restores, and with what format and
// version; what cannot be decoded is reported in Snapshot.Err, not as an
// error.
//
// It lists each directory below dir once and reads each _metadata once;
// nothing else. Errors: dir missing (fs.ErrNotExist) or not a
// directory (vfs.ErrNotDir), and I/O errors.
func TakeInventory(ctx context.Context, dir vfs.Path, opts ...Option) (*Inventory, error) {
	o, fsys, dir, err := qualified(ctx, dir, opts)
	if err != nil {
		return nil, err
	}
	inv := &Inventory{Dir: dir}
	children, err := fsys.List(ctx, dir)
	if err != nil {
		return nil, err
	}
	if len(children) == 1 && !children[0].IsDir && children[0].Path == dir {
		return nil, vfs.NewPathError("inventory", dir, fmt.Errorf("%w: expected a directory of checkpoints", vfs.ErrNotDir))
	}
	// Snapshots outside job directories: decoded here; the jobs' are
	// decoded by scanJob.
	var others []Snapshot
	if isSnapshotDir(dir, children) {
		t, err := scanTree(ctx, fsys, dir, children)
		if err != nil {
			return nil, err
		}
		others = []Snapshot{t.snapshot(dir, jobOf(dir))}
	} else if id, ok := ParseJobDirName(dir.Name()); ok {
		if err := inv.addJob(ctx, &o, fsys, id, dir, children); err != nil {
			return nil, err
		}
	} else {
		for _, c := range children {
			if !c.IsDir {
				continue
			}
			if id, ok := ParseJobDirName(c.Name()); ok {
				if c.Symlink {
					inv.Jobs = append(inv.Jobs, JobDir{ID: id, Dir: c.Path, Link: true})
					continue
				}
				if err := inv.addJob(ctx, &o, fsys, id, c.Path, nil); err != nil {
					return nil, err
				}
				continue
			}
			sub, err := inv.snapshotsIn(ctx, fsys, dir, c)
			if err != nil {
				return nil, err
			}
			others = append(others, sub...)
		}
		for _, s := range others {
			inv.Bytes += s.Bytes
		}
	}
	if _, err := o.decodeSnapshots(ctx, fsys, others, nil); err != nil {
		return nil, err
	}
	inv.Snapshots = append(inv.Snapshots, others...)
	return inv, nil
}

// snapshotsIn returns the snapshots in c, a subdirectory of the listed
// directory dir that is not a job directory: c itself when it is one, and
// otherwise every snapshot directory below it (see tree.snapshots). A c that
// holds none is added to inv.Skipped.
func (inv *Inventory) snapshotsIn(ctx context.Context, fsys vfs.FileSystem, dir vfs.Path, c vfs.FileStatus) ([]Snapshot, error) {
	if c.Symlink {
		s := linkSnapshot(c, jobOf(dir))
		if len(s) == 0 {
			inv.Skipped = append(inv.Skipped, SkippedDir{Dir: c.Path, Reason: SkipLink})
		}
		return s, nil
	}
	t, err := scanTree(ctx, fsys, c.Path, nil)
	if err != nil {
		return nil, err
	}
	job := ""
	if isSnapshotName(c.Name()) {
		job = jobOf(dir)
	}
	out := t.snapshots(c.Path, job)
	if len(out) == 0 {
		inv.Skipped = append(inv.Skipped, SkippedDir{Dir: c.Path, Reason: SkipNoMetadata})
	}
	return out, nil
}

// isSnapshotName reports whether name is a checkpoint's or savepoint's
// directory name: chk-N or savepoint-*.
func isSnapshotName(name string) bool {
	_, ok := ParseCheckpointDirName(name)
	return ok || strings.HasPrefix(name, SavepointDirPrefix)
}

// snapshots returns the snapshot directories at or below dir in t, in path
// order: those named chk-N or savepoint-* and those holding a _metadata
// file, whatever their names; nothing below a snapshot directory is taken
// for another. A symbolic link named as a snapshot is reported (Link), not
// entered.
func (t *tree) snapshots(dir vfs.Path, job string) []Snapshot {
	var dirs []vfs.Path
	for d := range t.dirs {
		if _, in := d.Rel(dir); in {
			dirs = append(dirs, d)
		}
	}
	slices.SortFunc(dirs, func(a, b vfs.Path) int { return strings.Compare(a.String(), b.String()) })
	var out []Snapshot
	var last vfs.Path
	for _, d := range dirs {
		if !last.IsZero() {
			if _, in := d.Rel(last); in {
				continue
			}
		}
		for _, e := range t.dirs[d] {
			if e.IsDir && e.Symlink {
				out = append(out, linkSnapshot(e, "")...)
			}
		}
		if !isSnapshotName(d.Name()) && !slices.ContainsFunc(t.dirs[d], func(e vfs.FileStatus) bool {
			return !e.IsDir && e.Name() == MetadataFileName
		}) {
			continue
		}
		out = append(out, t.snapshot(d, job))
		last = d
	}
	return out
}

// linkSnapshot is the snapshot of a listed chk-N or savepoint-* entry that is
// a symbolic link (none for other names): reported with Link set, never
// entered.
func linkSnapshot(e vfs.FileStatus, job string) []Snapshot {
	s := Snapshot{Dir: e.Path, Job: job, CheckpointID: -1, Link: true}
	if id, ok := ParseCheckpointDirName(e.Name()); ok {
		s.CheckpointID = id
	} else if !strings.HasPrefix(e.Name(), SavepointDirPrefix) {
		return nil
	}
	s.Savepoint = s.CheckpointID < 0
	return []Snapshot{s}
}

// addJob scans a job directory (children: its listing, nil to list it) with
// scanJob and adds it and its snapshots.
func (inv *Inventory) addJob(ctx context.Context, o *options, fsys vfs.FileSystem, id JobID, dir vfs.Path, children []vfs.FileStatus) error {
	js, err := o.scanJob(ctx, fsys, dir, children, scanSizes)
	if err != nil {
		return err
	}
	j := JobDir{ID: id, Dir: dir}
	// scanJob found every snapshot below dir; name the other directories
	// in it that hold none.
	for _, c := range js.tree.dirs[dir] {
		switch n := c.Name(); {
		case !c.IsDir || isSnapshotName(n) || n == SharedStateDir || n == TaskOwnedStateDir:
		case c.Symlink:
			inv.Skipped = append(inv.Skipped, SkippedDir{Dir: c.Path, Reason: SkipLink})
		case !slices.ContainsFunc(js.snapshots, func(s Snapshot) bool { _, in := s.Dir.Rel(c.Path); return in }):
			inv.Skipped = append(inv.Skipped, SkippedDir{Dir: c.Path, Reason: SkipNoMetadata})
		}
	}
	for _, f := range js.tree.files {
		j.Bytes += f.Size
		j.Files++
	}
	inv.Jobs = append(inv.Jobs, j)
	inv.Bytes += j.Bytes
	inv.Snapshots = append(inv.Snapshots, js.snapshots...)
	return nil
}

// isSnapshotDir reports whether dir (with these children) is a checkpoint or
// savepoint directory: it holds a _metadata file or is named chk-N or
// savepoint-*.
func isSnapshotDir(dir vfs.Path, children []vfs.FileStatus) bool {
	if _, ok := ParseCheckpointDirName(dir.Name()); ok || strings.HasPrefix(dir.Name(), SavepointDirPrefix) {
		return true
	}
	for _, c := range children {
		if !c.IsDir && c.Name() == MetadataFileName {
			return true
		}
	}
	return false
}

// jobOf returns the job id of a job directory's name, "" for other names.
func jobOf(dir vfs.Path) string {
	if id, ok := ParseJobDirName(dir.Name()); ok {
		return id.String()
	}
	return ""
}

// tree is what scanTree found below root.
type tree struct {
	root vfs.Path
	// files are the files below root, in walk order.
	files []vfs.FileStatus
	// dirs holds the listing of every directory walked.
	dirs map[vfs.Path][]vfs.FileStatus
}

// maxTreeDepth bounds how deep scanTree descends (Flink's layout is three
// levels deep), so a directory loop cannot make it run forever.
const maxTreeDepth = 32

// scanTree lists root (whose listing is children, or nil to list it) and every
// directory below it, one LIST per directory and nothing else. Directories
// that vanish meanwhile are skipped, and so are symbolic links to directories
// (file://): what lies behind them is not in root, so an audit never counts
// it nor deletes it, and a relocation does not copy it.
func scanTree(ctx context.Context, fsys vfs.FileSystem, root vfs.Path, children []vfs.FileStatus) (*tree, error) {
	t := &tree{root: root, dirs: map[vfs.Path][]vfs.FileStatus{}}
	if children == nil {
		var err error
		switch children, err = fsys.List(ctx, root); {
		case errors.Is(err, fs.ErrNotExist):
			return t, nil
		case err != nil:
			return t, err
		case children == nil:
			children = []vfs.FileStatus{}
		}
	}
	rootDepth := root.Depth()
	err := vfs.WalkWith(ctx, fsys, root, vfs.WalkOptions{Entries: children}, func(st vfs.FileStatus, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // gone meanwhile: nothing to count
		case err != nil:
			return err
		}
		if st.Path != root || !st.IsDir {
			parent := st.Path.Parent()
			if st.Path == root { // a file lists itself
				parent = root
			}
			t.dirs[parent] = append(t.dirs[parent], st)
		}
		switch {
		case st.IsDir && st.Symlink:
			// A link to a directory leads outside what was named: its
			// files are neither counted nor ever offered for deletion
			// (the walk does not enter it).
		case st.IsDir:
			if st.Path.Depth()-rootDepth > maxTreeDepth {
				return vfs.NewPathError("list", st.Path, fmt.Errorf("more than %d directory levels below %s: %w", maxTreeDepth, t.root, fs.ErrInvalid))
			}
			if _, ok := t.dirs[st.Path]; !ok {
				t.dirs[st.Path] = []vfs.FileStatus{}
			}
		case st.Path != root:
			t.files = append(t.files, st)
		}
		return nil
	})
	return t, err
}

// snapshot measures the snapshot directory dir, which lies in t, from what
// the scan found.
func (t *tree) snapshot(dir vfs.Path, job string) Snapshot {
	s := Snapshot{Dir: dir, Job: job, CheckpointID: -1}
	for _, e := range t.dirs[dir.Parent()] {
		if e.Path == dir && e.Symlink {
			s.Link = true
		}
	}
	if id, ok := ParseCheckpointDirName(dir.Name()); ok {
		s.CheckpointID = id
	}
	s.Savepoint = strings.HasPrefix(dir.Name(), SavepointDirPrefix)
	mp := dir.Join(MetadataFileName)
	for _, f := range t.files {
		if _, ok := f.Path.Rel(dir); !ok {
			continue
		}
		s.Bytes += f.Size
		s.Files++
		if f.ModTime.After(s.ModTime) {
			s.ModTime = f.ModTime
		}
		if f.Path == mp {
			s.HasMetadata, s.MetadataModTime = true, f.ModTime
		}
	}
	return s
}

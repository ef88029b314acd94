package checkpointstorage

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/vfskit/vfskit/vfs"
)

// Orphan is a file under a job's directory that no completed checkpoint of
// the job references.
type Orphan struct {
	vfs.FileStatus
	// Deletable is set when DeleteOrphans may delete the file: no completed
	// checkpoint (or savepoint) in the job's directory references it, nor
	// one of any other job under the same base directory (ScanReferences),
	// every _metadata there decodes and every job directory there can be
	// listed, it cannot belong to a checkpoint in progress (the rule
	// CollectGarbage shares: see CollectGarbage), and every referenced file
	// was found (a reference that points nowhere may mean this file under
	// another name: see WithPathMapping), and no reference in a spelling
	// that cannot be resolved records its name (see References.Unresolved).
	// Otherwise Reason says why not.
	Deletable bool
	Reason    string
}

// Audit compares the files a job's completed checkpoints reference with the
// files under the job's directory: see AuditJob.
type Audit struct {
	// JobDir is the job's directory, qualified.
	JobDir vfs.Path
	// Snapshots are the checkpoint and savepoint directories in JobDir.
	Snapshots []Snapshot
	// Referenced holds one check per file the completed snapshots reference
	// (inside the job's directory or not), with whether it is present.
	Referenced []FileCheck
	// Orphans are the files under JobDir that no completed snapshot
	// references (their _metadata files count as referenced).
	Orphans []Orphan
	// Files and Bytes count everything under JobDir; MetadataFiles and
	// MetadataBytes the snapshots' _metadata files among them;
	// ReferencedBytes the referenced state files present under it (not the
	// _metadata files); OrphanBytes the orphans.
	Files, MetadataFiles                               int
	Bytes, MetadataBytes, ReferencedBytes, OrphanBytes int64
}

// Missing returns the referenced files that are missing, of the wrong size
// or could not be checked.
func (a *Audit) Missing() []FileCheck {
	v := Verification{Files: a.Referenced}
	return v.Problems()
}

// DeletableBytes is the size of the orphans DeleteOrphans would delete.
func (a *Audit) DeletableBytes() int64 {
	var n int64
	for _, o := range a.Orphans {
		if o.Deletable {
			n += o.Size
		}
	}
	return n
}

// AuditJob lists everything under a job's checkpoints directory
// (<base>/<job id>: its chk-N and savepoint-* directories, shared/,
// taskowned/), decodes every _metadata, and sorts the files into those the
// completed snapshots reference and orphans: state no completed checkpoint
// needs any more (left by failed checkpoints, or shared state that Flink's
// registry did not get to delete), with their sizes. References are resolved
// as VerifyCheckpoint does, through WithPathMapping, so shared state recorded
// by the absolute paths of the machine that wrote it is recognised in the
// job's new place.
//
// Other jobs under the same base directory (the parent of jobDir) may
// reference this job's files: a job restored from it in CLAIM mode references
// its shared/ files. Their _metadata files are read too (ScanReferences), and
// an orphan that one of them references, or any orphan while one of them
// cannot be listed or decoded, is not Deletable.
//
// It lists each directory once (one paginated LIST per directory on an object
// store, no request per file, plus one of the base directory and of each
// other job's directory) and reads each _metadata once; it deletes nothing
// (see DeleteOrphans). A missing directory fails with fs.ErrNotExist.
func AuditJob(ctx context.Context, jobDir vfs.Path, opts ...Option) (*Audit, error) {
	o, fsys, jobDir, err := qualified(ctx, jobDir, opts)
	if err != nil {
		return nil, err
	}
	if jobDir.Depth() == 0 {
		return nil, vfs.NewPathError("audit", jobDir, fmt.Errorf("the root of a file system is not a job's checkpoints directory: %w", fs.ErrInvalid))
	}
	children, err := fsys.List(ctx, jobDir)
	if err != nil {
		return nil, err
	}
	if err := checkJobDir(jobDir, children); err != nil {
		return nil, err
	}
	js, err := o.scanJob(ctx, fsys, jobDir, children, scanSizes)
	if err != nil {
		return nil, err
	}
	t := js.tree
	a := &Audit{JobDir: jobDir, Snapshots: js.snapshots}
	lister := newDirLister(o.registry)
	for d, entries := range t.dirs {
		lister.add(d, entries)
	}
	var refs []resolvedRef
	// Files are compared by their canonical paths: a reference spelled
	// s3a://, or through a linked ancestor, is the file listed as s3:// or
	// under the link.
	referenced := map[vfs.Path]bool{}
	unresolved := unresolvedNames{}
	var undecodable []vfs.Path
	for i := range a.Snapshots {
		s, m := &a.Snapshots[i], js.metadata[i]
		if s.Err != nil {
			undecodable = append(undecodable, s.Dir)
		}
		if m == nil {
			continue
		}
		referenced[o.keyOf(ctx, s.Dir.Join(MetadataFileName))] = true
		rs := o.resolveRefs(ctx, m, s.Dir)
		unresolved.addRefs(s.Dir, rs)
		refs = append(refs, rs...)
	}
	if a.Referenced, err = o.checkFiles(ctx, lister, refs); err != nil {
		return nil, err
	}
	for _, r := range refs {
		if r.Err == nil {
			referenced[r.Key] = true
		}
	}
	// Other jobs under the same base may reference this job's files (a job
	// restored from it in CLAIM mode).
	others, err := o.scanReferences(ctx, fsys, jobDir.Parent(), jobDir)
	if err != nil {
		return nil, err
	}
	blind := others.BlindErr(jobDir)
	// The in-progress rule judges by the job's chk-N directories only: a
	// snapshot of another name (a copy a user put there) says nothing about
	// which checkpoint runs now.
	rule := newProgressRule(js.chks())
	chks := map[vfs.Path]*Snapshot{}
	for i := range js.checkpoints {
		chks[a.Snapshots[i].Dir] = &a.Snapshots[i]
	}
	missing := a.Missing()
	metas := map[vfs.Path]bool{}
	for _, s := range a.Snapshots {
		metas[s.Dir.Join(MetadataFileName)] = true
	}
	for _, f := range t.files {
		a.Files++
		a.Bytes += f.Size
		if metas[f.Path] {
			a.MetadataFiles++
			a.MetadataBytes += f.Size
		}
		key := o.keyOf(ctx, f.Path)
		if referenced[key] {
			if !metas[f.Path] {
				a.ReferencedBytes += f.Size
			}
			continue
		}
		orphan := Orphan{FileStatus: f}
		chk, mod := a.progressOf(chks, f)
		blocked := cmp.Or(unresolved.blocking(f.Path, vfs.Path{}), unresolvedNames(others.Unresolved).blocking(f.Path, vfs.Path{}))
		switch by := others.Outside(jobDir, key); {
		case len(undecodable) > 0:
			orphan.Reason = fmt.Sprintf("the _metadata in %s cannot be decoded, so what it references is unknown", undecodable[0])
		case blocked != "":
			orphan.Reason = blocked
		case len(missing) > 0:
			orphan.Reason = fmt.Sprintf("%d referenced file(s) are not where the metadata says (such as %s; map them with a path mapping): this file may be one of them", len(missing), missing[0].Recorded)
		case len(by) > 0:
			orphan.Reason = fmt.Sprintf("referenced by %s, a checkpoint of another job under the same base directory (restored from this one)", by[0].Redacted())
		case blind != nil:
			orphan.Reason = blind.Error() + ": another job may reference this file"
		case rule.inProgress(chk, mod) != "":
			orphan.Reason = rule.inProgress(chk, mod)
		case !within(jobDir, f.Path):
			orphan.Reason = "outside the job's directory"
		default:
			orphan.Deletable = true
		}
		a.Orphans = append(a.Orphans, orphan)
		a.OrphanBytes += f.Size
	}
	return a, nil
}

// progressOf returns what the "may be in progress" rule (progressRule) judges
// the file f by: the id of the chk-N snapshot it lies in and the newest
// modification in that snapshot, or -1 and its own modification time.
func (a *Audit) progressOf(chks map[vfs.Path]*Snapshot, f vfs.FileStatus) (int64, time.Time) {
	for d := f.Path.Parent(); d.Depth() > a.JobDir.Depth(); d = d.Parent() {
		if s := chks[d]; s != nil {
			return s.CheckpointID, s.ModTime
		}
	}
	return -1, f.ModTime
}

// checkJobDir refuses what is clearly not a job's directory: a file, a
// checkpoint or savepoint directory, or a base directory holding jobs (whose
// files would all look orphaned).
func checkJobDir(dir vfs.Path, children []vfs.FileStatus) error {
	bad := func(why string) error {
		return vfs.NewPathError("audit", dir, notJobDir(why+"; expected a job's checkpoints directory (<base>/<job id>)"))
	}
	if len(children) == 1 && children[0].Path == dir && !children[0].IsDir {
		return bad("a file")
	}
	hasSnapshots := false
	for _, c := range children {
		if !c.IsDir && c.Name() == MetadataFileName {
			return bad("a checkpoint or savepoint directory (it holds " + MetadataFileName + "): audit the directory holding it")
		}
		if _, ok := ParseCheckpointDirName(c.Name()); c.IsDir && (ok || strings.HasPrefix(c.Name(), SavepointDirPrefix)) {
			hasSnapshots = true
		}
	}
	if !hasSnapshots {
		for _, c := range children {
			if _, ok := ParseJobDirName(c.Name()); c.IsDir && ok {
				return bad("a base directory holding job " + c.Name() + ": audit one job at a time")
			}
		}
	}
	return nil
}

// notJobDir says why a directory is not a job's checkpoints directory; it is
// fs.ErrInvalid to errors.Is.
type notJobDir string

func (e notJobDir) Error() string { return string(e) }
func (e notJobDir) Unwrap() error { return fs.ErrInvalid }

// DeleteOrphans deletes the orphans of a that are Deletable, and nothing else:
// never a file outside a.JobDir, whatever a _metadata says. It returns the
// files deleted (on error, those deleted before it). Each is deleted only
// while it is still the version the audit listed (its size and modification
// time, vfs.DeleteVersion): an orphan written again since the audit is left
// in place and not returned. With WithDryRun it
// deletes nothing and returns what it would delete.
//
// Deleting is safe while the job runs: a checkpoint that completes after the
// audit references only files written after the newest completed one (Flink
// reuses shared state only from checkpoints it retains, which are completed
// ones), and those are not Deletable. Other jobs under the same base directory
// are asked again just before deleting (ScanReferences): an orphan that a job
// restored since the audit references is left, and while one of them cannot
// be read nothing is deleted (an error says which).
func DeleteOrphans(ctx context.Context, a *Audit, opts ...Option) ([]vfs.Path, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	fsys, err := o.registry.GetPath(ctx, a.JobDir)
	if err != nil {
		return nil, err
	}
	// A job restored from this one since the audit references its files
	// from now on: ask the other jobs again, just before deleting.
	others, err := o.scanReferences(ctx, fsys, a.JobDir.Parent(), a.JobDir)
	if err != nil {
		return nil, err
	}
	if err := others.BlindErr(a.JobDir); err != nil {
		return nil, vfs.NewPathError("delete orphans", a.JobDir, fmt.Errorf("refusing to delete: %w", err))
	}
	var deleted []vfs.Path
	for _, orphan := range a.Orphans {
		if !orphan.Deletable || !within(a.JobDir, orphan.Path) || len(others.Outside(a.JobDir, o.keyOf(ctx, orphan.Path))) > 0 ||
			unresolvedNames(others.Unresolved).blocking(orphan.Path, vfs.Path{}) != "" {
			continue
		}
		if !o.dryRun {
			// Only the version the audit saw: a file written again since is
			// not the one judged unneeded, and stays.
			gone, err := deleteExact(ctx, fsys, orphan.Path, vfs.VersionOf(orphan.FileStatus))
			if err != nil {
				return deleted, err
			}
			if !gone {
				continue
			}
		}
		deleted = append(deleted, orphan.Path)
	}
	return deleted, nil
}

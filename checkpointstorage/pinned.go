package checkpointstorage

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// pinnedFiles returns the files that snaps, a job's snapshots other than its
// chk-N directories (its savepoint-* directories and the directories of any
// name holding a _metadata, which the audit counts as referencing them too),
// reference according to their decoded _metadata ms (nil for one that did
// not decode), each with the snapshot that references it.
func (o *options) pinnedFiles(ctx context.Context, snaps []Snapshot, ms []*metadata.Metadata) map[vfs.Path]vfs.Path {
	pinned := map[vfs.Path]vfs.Path{}
	for i, m := range ms {
		if m == nil {
			continue
		}
		for _, r := range o.resolveRefs(ctx, m, snaps[i].Dir) {
			if r.Err == nil {
				pinned[r.Key] = snaps[i].Dir
			}
		}
	}
	return pinned
}

// jobPins is pinnedFiles of the job directory dir (children: its listing)
// found without listing its chk-N directories: it lists every other directory
// in it, finds the snapshots there as scanJob does (tree.snapshots) and
// decodes their _metadata.
func (o *options) jobPins(ctx context.Context, fsys vfs.FileSystem, dir vfs.Path, children []vfs.FileStatus) (map[vfs.Path]vfs.Path, error) {
	job := jobOf(dir)
	var snaps []Snapshot
	for _, c := range children {
		if _, chk := ParseCheckpointDirName(c.Name()); chk || !c.IsDir || c.Symlink || c.Path == dir {
			continue
		}
		t, err := scanTree(ctx, fsys, c.Path, nil)
		if err != nil {
			return nil, err
		}
		snaps = append(snaps, t.snapshots(c.Path, job)...)
	}
	ms, err := o.decodeSnapshots(ctx, fsys, snaps, nil)
	if err != nil {
		return nil, err
	}
	return o.pinnedFiles(ctx, snaps, ms), nil
}

// pinnedGuard says why the checkpoint s (whose _metadata decoded to m, nil
// for a leftover) must stay because another snapshot of its job references
// a file in its directory or one of its entropy-injected files elsewhere in
// the job (pinned: see pinnedFiles), "" when none does.
func (o *options) pinnedGuard(ctx context.Context, s *Snapshot, m *metadata.Metadata, pinned map[vfs.Path]vfs.Path) string {
	if len(pinned) == 0 {
		return ""
	}
	for _, f := range referencedFiles(ctx, o, pinned, s, m) {
		if by, ok := pinned[o.keyOf(ctx, f)]; ok {
			return fmt.Sprintf("%s, another snapshot in the job's directory, references its file %s", by.Redacted(), f.Redacted())
		}
	}
	return ""
}

// referencedFiles returns the files that refs (keyed by file) names in the
// checkpoint s's directory, sorted, then s's entropy-injected files elsewhere
// in the job (m: its _metadata, nil for a leftover): of the files removing s
// would delete, all those refs may name, found without listing s.
func referencedFiles[V any](ctx context.Context, o *options, refs map[vfs.Path]V, s *Snapshot, m *metadata.Metadata) []vfs.Path {
	var files []vfs.Path
	dk := o.dirKey(ctx, s.Dir)
	for p := range refs {
		if within(dk, p) {
			files = append(files, p)
		}
	}
	slices.SortFunc(files, func(a, b vfs.Path) int { return strings.Compare(a.String(), b.String()) })
	if m != nil {
		inJob, _ := o.exclusiveFiles(ctx, m, s.Dir)
		files = append(files, inJob...)
	}
	return files
}

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

// FileCheck is what verification found about one file a checkpoint
// references (all references to the same file are merged into one check).
type FileCheck struct {
	// Path is where the file was looked for: a relative reference resolved
	// against the checkpoint directory, an absolute one after the path
	// mappings (WithPathMapping), qualified.
	Path vfs.Path
	// Recorded is the path as the _metadata records it (of the first
	// reference).
	Recorded string
	// Reference is metadata.Relative or metadata.Absolute.
	Reference metadata.Reference
	// Mapped is set when a path mapping applied.
	Mapped bool
	// Want is the size the file must have: the recorded size of a whole-file
	// reference, or for segments of a merged file (Segment set) the end of the
	// last segment, which the file must reach.
	Want    int64
	Segment bool
	// Present is set when the file exists; Size is then its size.
	Present bool
	Size    int64
	// Err says why the file could not be checked (a scheme that is not
	// registered such as hdfs, an invalid path, a listing that failed).
	Err error
}

// OK reports whether the file is present with the size the metadata records.
func (c FileCheck) OK() bool {
	if c.Err != nil || !c.Present {
		return false
	}
	if c.Segment {
		return c.Size >= c.Want
	}
	return c.Size == c.Want
}

// Problem describes what is wrong with the file ("" when OK): "missing",
// "size 10, expected 12" or "cannot check: ...".
func (c FileCheck) Problem() string {
	switch {
	case c.OK():
		return ""
	case c.Err != nil:
		var us *vfs.UnsupportedSchemeError
		if errors.As(c.Err, &us) {
			return fmt.Sprintf("cannot check (no file system for %s:, registered: %s; a path mapping can say where the file is now)", us.Scheme, strings.Join(us.Registered, ", "))
		}
		return "cannot check: " + c.Err.Error()
	case !c.Present:
		return "missing"
	case c.Segment:
		return fmt.Sprintf("size %d, expected at least %d", c.Size, c.Want)
	}
	return fmt.Sprintf("size %d, expected %d", c.Size, c.Want)
}

// Verification is the result of VerifyCheckpoint.
type Verification struct {
	// Dir is the checkpoint's directory and MetadataPath its _metadata file,
	// qualified.
	Dir, MetadataPath vfs.Path
	// Metadata is the decoded metadata (VerifyCheckpoint: the model as read,
	// no live handles; VerifyMetadata: the metadata it was given).
	Metadata *metadata.Metadata
	// Files holds one check per referenced file, in the order of their first
	// reference.
	Files []FileCheck
}

// Problems returns the checks that failed: files missing, of the wrong size,
// or that could not be checked.
func (v *Verification) Problems() []FileCheck {
	var p []FileCheck
	for _, c := range v.Files {
		if !c.OK() {
			p = append(p, c)
		}
	}
	return p
}

// OK reports whether every referenced file is present with its recorded size.
func (v *Verification) OK() bool { return len(v.Problems()) == 0 }

// VerifyCheckpoint checks that every file the metadata of a checkpoint or
// savepoint references is present with its recorded size. pointer is what
// LoadCheckpoint accepts (the directory or its _metadata file, on any
// registered file system). Relative references resolve against the checkpoint
// directory; absolute ones are looked for as recorded, after the path mappings
// of WithPathMapping. Each directory holding referenced files is listed once
// (no request per file on an object store); a file on a scheme that is not
// registered (hdfs:, ...) is reported as one that could not be checked.
//
// Missing or wrong-sized files are not an error: they are in the result's
// Problems. The error is set when the metadata cannot be found or decoded
// (ErrCorruptMetadata), or the listing is cancelled.
func VerifyCheckpoint(ctx context.Context, pointer vfs.Path, opts ...Option) (*Verification, error) {
	o, fsys, pointer, err := qualified(ctx, pointer, opts)
	if err != nil {
		return nil, err
	}
	lister := newDirLister(o.registry)
	dir, mp, err := findMetadata(ctx, fsys, pointer, lister)
	if err != nil {
		return nil, err
	}
	m, err := readMetadataFile(ctx, fsys, mp)
	if err != nil {
		return nil, err
	}
	return o.verify(ctx, lister, dir, mp, m)
}

// VerifyMetadata is VerifyCheckpoint for a checkpoint whose metadata was
// already read (LoadCheckpoint returns both): it checks the files m
// references, relative ones against loc's directory, without reading or
// looking for the _metadata again (one GET less than LoadCheckpoint followed
// by VerifyCheckpoint). The result's Metadata is m.
func VerifyMetadata(ctx context.Context, loc *FsCompletedCheckpointStorageLocation, m *CheckpointMetadata, opts ...Option) (*Verification, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return o.verify(ctx, newDirLister(o.registry), loc.CheckpointDir(), loc.MetadataPath(), m)
}

// verify checks the files m (read from metadataPath) references through l.
func (o *options) verify(ctx context.Context, l *dirLister, dir, metadataPath vfs.Path, m *metadata.Metadata) (*Verification, error) {
	v := &Verification{Dir: dir, MetadataPath: metadataPath, Metadata: m}
	var err error
	v.Files, err = o.checkFiles(ctx, l, o.resolveRefs(ctx, m, dir))
	return v, err
}

// findMetadata finds the metadata file of a pointer (a directory holding
// _metadata, or the metadata file) with one LIST, whose result seeds l (the
// directory's relative state files are beside _metadata). Errors carry
// Flink's messages, as ResolveCheckpointPointer's.
func findMetadata(ctx context.Context, fsys vfs.FileSystem, p vfs.Path, l *dirLister) (dir, metadataPath vfs.Path, err error) {
	entries, err := fsys.List(ctx, p)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(entries) == 0) {
		if err == nil {
			err = vfs.NewPathError("list", p, fs.ErrNotExist)
		}
		return dir, metadataPath, fmt.Errorf("checkpointstorage: Cannot find checkpoint or savepoint file/directory '%s' on file system '%s'.: %w", p, fsys.URI().Scheme, err)
	}
	if err != nil {
		return dir, metadataPath, err
	}
	if len(entries) == 1 && entries[0].Path == p && !entries[0].IsDir {
		return p.Parent(), p, nil
	}
	l.add(p, entries)
	if st, ok, _ := l.stat(ctx, p.Join(MetadataFileName)); !ok || st.IsDir {
		return dir, metadataPath, fmt.Errorf("checkpointstorage: Cannot find meta data file '%s' in directory '%s'. Please try to load the checkpoint/savepoint directly from the metadata file instead of the directory.: %w",
			MetadataFileName, p, vfs.NewPathError("stat", p.Join(MetadataFileName), fs.ErrNotExist))
	}
	return p, p.Join(MetadataFileName), nil
}

// checkFiles merges the references to the same file and checks each file
// through l.
func (o *options) checkFiles(ctx context.Context, l *dirLister, refs []resolvedRef) ([]FileCheck, error) {
	var checks []FileCheck
	index := map[string]int{}
	for _, r := range refs {
		key := r.Key.String() // one check per file, however it is spelled
		if r.Err != nil {
			key = "\x00" + r.FileRef.Path
		}
		want := r.Size
		if r.Segment {
			want = r.Offset + r.Size
		}
		if i, ok := index[key]; ok {
			checks[i].Want = max(checks[i].Want, want)
			checks[i].Segment = checks[i].Segment && r.Segment
			continue
		}
		index[key] = len(checks)
		checks = append(checks, FileCheck{Path: r.Path, Recorded: r.FileRef.Path, Reference: r.Reference,
			Mapped: r.Mapped, Want: want, Segment: r.Segment, Err: r.Err})
	}
	for i := range checks {
		c := &checks[i]
		if c.Err != nil {
			continue
		}
		st, ok, err := l.stat(ctx, c.Path)
		if ctx.Err() != nil {
			return checks, ctx.Err()
		}
		c.Present, c.Size, c.Err = ok, st.Size, err
	}
	return checks, nil
}

// readMetadataFile reads and decodes the _metadata file p (the model as read).
func readMetadataFile(ctx context.Context, fsys vfs.FileSystem, p vfs.Path) (*metadata.Metadata, error) {
	return readMetadataStatus(ctx, fsys, p, nil, nil)
}

// readMetadataStatus is readMetadataFile that, when the metadata decodes,
// also sets *st (when not nil) to the status of the file it read
// (vfs.StatStream: on an object store, from the GET's response, no request)
// and *v (when not nil) to the version it read (vfs.StreamVersion: with the
// store's ETag or generation, from the same response), the one a delete
// proves is still there.
func readMetadataStatus(ctx context.Context, fsys vfs.FileSystem, p vfs.Path, st *vfs.FileStatus, v *vfs.Version) (*metadata.Metadata, error) {
	in, err := vfs.OpenRegular(ctx, fsys, p)
	if errors.Is(err, vfs.ErrNotRegular) {
		return nil, &fs.PathError{Op: "read checkpoint metadata", Path: p.Redacted(), Err: fmt.Errorf("%w: %w", metadata.ErrCorrupt, err)}
	}
	if err != nil {
		return nil, err
	}
	defer in.Close()
	m, err := metadata.Read(in)
	if err != nil {
		return nil, &fs.PathError{Op: "read checkpoint metadata", Path: p.Redacted(), Err: err}
	}
	if st != nil {
		if *st, err = vfs.StatStream(ctx, fsys, p, in); err != nil {
			return nil, err
		}
	}
	if v != nil {
		if *v, err = vfs.StreamVersion(ctx, fsys, p, in); err != nil {
			return nil, err
		}
	}
	return m, nil
}

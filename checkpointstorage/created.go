package checkpointstorage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/vfskit/vfskit/vfs"
)

// created records what one writer of a checkpoint location published: the
// state files its streams wrote for the checkpoint and the _metadata, each
// with the version its write published (vfs.WrittenVersion). DisposeOnFailure
// deletes exactly these, each only at that version, so a writer that lost a
// race for a checkpoint id never deletes the winner's checkpoint, not even a
// file the winner wrote again at a name this writer used. It is safe for
// concurrent use (a location's streams may be closed from several
// goroutines).
type created struct {
	mu       sync.Mutex
	files    []createdFile
	metadata *createdFile
}

// createdFile is a file a writer published, at the version it published
// (known false: the version could not be told, so the file is never
// deleted).
type createdFile struct {
	path    vfs.Path
	version vfs.Version
	known   bool
}

// keepVersion asks out to keep the version its Close publishes
// (vfs.WrittenVersioner), when c records anything.
func (c *created) keepVersion(out vfs.OutputStream) {
	if wv, ok := out.(vfs.WrittenVersioner); ok && c != nil {
		wv.KeepVersion()
	}
}

// record returns p, published by out, with the version out published.
func record(ctx context.Context, fsys vfs.FileSystem, p vfs.Path, out vfs.OutputStream) createdFile {
	v, err := vfs.WrittenVersion(ctx, fsys, p, out)
	return createdFile{path: p, version: v, known: err == nil}
}

// file records a state file at p published by out, a stream of the location.
func (c *created) file(ctx context.Context, fsys vfs.FileSystem, p vfs.Path, out vfs.OutputStream) {
	if c == nil {
		return
	}
	f := record(ctx, fsys, p, out)
	c.mu.Lock()
	c.files = append(c.files, f)
	c.mu.Unlock()
}

// published records the location's _metadata at p, published by out.
func (c *created) published(ctx context.Context, fsys vfs.FileSystem, p vfs.Path, out vfs.OutputStream) {
	if c == nil {
		return
	}
	f := record(ctx, fsys, p, out)
	c.mu.Lock()
	c.metadata = &f
	c.mu.Unlock()
}

// dispose deletes what c recorded in the checkpoint directory dir, each file
// only at the version this writer published (vfs.DeleteVersion): the
// _metadata first (if this writer published it), then its state files, then
// dir itself if that leaves it empty. Everything else stays: another
// writer's _metadata and state, a file another writer wrote again at a name
// this one used, and files of the checkpoint that other processes (the
// tasks) wrote, which gc removes as a failed checkpoint's leftovers
// (CollectGarbage). A _metadata that is no longer this writer's keeps all of
// it. What stays of this writer's files is named in the error, which wraps
// vfs.ErrChanged. A dir that is a symbolic link is refused.
func (c *created) dispose(ctx context.Context, fsys vfs.FileSystem, dir vfs.Path) error {
	if link, err := vfs.IsSymlink(ctx, fsys, dir); err != nil || link {
		if link {
			err = errLink("dispose checkpoint", dir)
		}
		return err
	}
	c.mu.Lock()
	files, metadata := append([]createdFile(nil), c.files...), c.metadata
	c.mu.Unlock()
	r := DiscardReport{Dir: dir}
	if metadata != nil {
		if gone, err := metadata.delete(ctx, fsys); err != nil {
			return err
		} else if !gone {
			r.Kept = "its " + MetadataFileName + " is not the one this writer published (" + metadata.path.Redacted() + "): nothing of it was deleted"
			return disposeError(r)
		}
	}
	for _, f := range files {
		if gone, err := f.delete(ctx, fsys); err != nil {
			return err
		} else if !gone {
			r.Left = append(r.Left, f.path)
		}
	}
	if err := fsys.Delete(ctx, dir, false); err != nil && !errors.Is(err, vfs.ErrDirNotEmpty) {
		return err
	}
	c.mu.Lock()
	c.files, c.metadata = nil, nil
	c.mu.Unlock()
	return disposeError(r)
}

// delete deletes f at the version it was published; false when another
// version is there (or the version was never known), true when it is gone.
func (f createdFile) delete(ctx context.Context, fsys vfs.FileSystem) (bool, error) {
	if !f.known {
		if _, err := fsys.Stat(ctx, f.path); errors.Is(err, fs.ErrNotExist) {
			return true, nil
		}
		return false, nil
	}
	return deleteExact(ctx, fsys, f.path, f.version)
}

// disposeError is DisposeOnFailure's error for what of its writer's files
// stayed because another version is there (r.Kept, r.Left), nil when none
// did. It wraps vfs.ErrChanged.
func disposeError(r DiscardReport) error {
	switch {
	case r.Kept != "":
		return &fs.PathError{Op: "dispose checkpoint", Path: r.Dir.Redacted(), Err: fmt.Errorf("%w: kept: %s", vfs.ErrChanged, r.Kept)}
	case len(r.Left) > 0:
		return &fs.PathError{Op: "dispose checkpoint", Path: r.Dir.Redacted(), Err: fmt.Errorf("%w: %d file(s) this writer published were written again by another writer (or their version is not known) and stay:%s", vfs.ErrChanged, len(r.Left), pathLines(r.Left))}
	}
	return nil
}

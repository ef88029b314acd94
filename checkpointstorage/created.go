package checkpointstorage

import (
	"context"
	"errors"
	"sync"

	"github.com/vfskit/vfskit/vfs"
)

// created records what one writer of a checkpoint location published: the
// state files its streams wrote for the checkpoint and whether it published
// the _metadata. DisposeOnFailure deletes exactly these, so a writer that lost
// a race for a checkpoint id never deletes the winner's checkpoint. It is safe
// for concurrent use (a location's streams may be closed from several
// goroutines).
type created struct {
	mu       sync.Mutex
	files    []vfs.Path
	metadata bool
}

// file records a state file published by a stream of the location.
func (c *created) file(p vfs.Path) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.files = append(c.files, p)
	c.mu.Unlock()
}

// published records that the location's _metadata was published.
func (c *created) published() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.metadata = true
	c.mu.Unlock()
}

// dispose deletes what c recorded in the checkpoint directory dir: the
// _metadata first (if this writer published it), then its state files, then
// dir itself if that leaves it empty. Everything else stays: another writer's
// _metadata and state, and files of the checkpoint that other processes (the
// tasks) wrote, which gc removes as a failed checkpoint's leftovers
// (CollectGarbage). A dir that is a symbolic link is refused.
func (c *created) dispose(ctx context.Context, fsys vfs.FileSystem, dir vfs.Path) error {
	if link, err := vfs.IsSymlink(ctx, fsys, dir); err != nil || link {
		if link {
			err = errLink("dispose checkpoint", dir)
		}
		return err
	}
	c.mu.Lock()
	files, metadata := append([]vfs.Path(nil), c.files...), c.metadata
	c.mu.Unlock()
	if metadata {
		if err := fsys.Delete(ctx, dir.Join(MetadataFileName), false); err != nil {
			return err
		}
	}
	for _, p := range files {
		if err := fsys.Delete(ctx, p, false); err != nil {
			return err
		}
	}
	if err := fsys.Delete(ctx, dir, false); err != nil && !errors.Is(err, vfs.ErrDirNotEmpty) {
		return err
	}
	c.mu.Lock()
	c.files, c.metadata = nil, false
	c.mu.Unlock()
	return nil
}

package layer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/vfskit/vfskit/vfs"
)

// Base forwards every method to Inner, the file system below the layer. It
// implements vfs.FileSystem and all of vfs's optional interfaces
// (vfs.OpenBeneathFS, vfs.ReadFileFS, vfs.WriteFileFS, vfs.CopyFS,
// vfs.TempCleaner, vfs.RealPathFS, vfs.DirSyncer, vfs.RecoverableWriterFS,
// vfs.DeleteVersionFS, vfs.UnnameableFS) and io.Closer; where Inner does not
// implement one, the method does what vfs's helper does without it, on
// Inner, or answers as the interface says a file system that cannot answers
// (OpenBeneath: errors.ErrUnsupported). Embed it in a layer and override what
// the layer changes (see the package documentation). TestLayersForward lists
// the optional interfaces declared in package vfs and fails when Base, or any
// layer of this module, lacks one.
//
// Inner is an embedded field, so vfs.FileSystem's methods are Inner's own,
// promoted: a layer that does not override one forwards the call in a single
// step (BenchmarkEmptyLayer measures what that costs).
type Base struct {
	// Inner is the file system below the layer; it must not be nil.
	Inner
}

// Inner is vfs.FileSystem under the name of Base's field, so that
// layer.Base{Inner: fsys} builds a Base.
type Inner = vfs.FileSystem

// Compile-time checks that Base forwards every optional interface.
var (
	_ vfs.OpenBeneathFS   = Base{}
	_ vfs.ReadFileFS      = Base{}
	_ vfs.WriteFileFS     = Base{}
	_ vfs.CopyFS          = Base{}
	_ vfs.TempCleaner     = Base{}
	_ vfs.RealPathFS      = Base{}
	_ vfs.DirSyncer       = Base{}
	_ vfs.DeleteVersionFS = Base{}
	_ vfs.UnnameableFS    = Base{}
	_ io.Closer           = Base{}
)

// OpenBeneath is Inner's OpenBeneath (vfs.OpenBeneathFS): it opens dir/rel
// without following a symbolic link in rel, so that vfs.CopyTree and
// vfs.MoveTree under a layer refuse a directory swapped for a link exactly as
// they do on the file system below. Where Inner has none it fails with an
// *fs.PathError wrapping errors.ErrUnsupported and opens nothing; the caller
// then decides (CopyTree opens the file with Open, as it does on such a file
// system without a layer).
func (b Base) OpenBeneath(ctx context.Context, dir vfs.Path, rel string) (vfs.InputStream, error) {
	if CanOpenBeneath(b.Inner) {
		return b.Inner.(vfs.OpenBeneathFS).OpenBeneath(ctx, dir, rel)
	}
	return nil, vfs.NewPathError("open", dir.Join(rel), fmt.Errorf("%w: the file system below (%s) cannot open without following links", errors.ErrUnsupported, vfs.RedactURL(b.Inner.URI())))
}

// CanOpenBeneath reports whether fsys can open beneath a directory without
// following links: it implements vfs.OpenBeneathFS and, where it is a layer
// (a Base, or a type that embeds one), so does the file system below it,
// down to the first that is not a layer. A layer's OpenBeneath asks it
// before it does what it does around an open (takes a slot, starts a span,
// records or injects a fault), so that over a file system without the way
// it answers errors.ErrUnsupported at once and its caller's Open is the one
// open the layer sees.
func CanOpenBeneath(fsys vfs.FileSystem) bool {
	for range maxDepth {
		if _, ok := fsys.(vfs.OpenBeneathFS); !ok {
			return false
		}
		l, ok := fsys.(interface{ below() vfs.FileSystem })
		if !ok {
			return true
		}
		fsys = l.below()
	}
	return false
}

// maxDepth bounds the layers CanOpenBeneath looks through.
const maxDepth = 1000

// below returns Inner (see CanOpenBeneath).
func (b Base) below() vfs.FileSystem { return b.Inner }

// ReadFile is vfs.ReadFile on Inner: Inner's ReadFile when it has one.
func (b Base) ReadFile(ctx context.Context, p vfs.Path) ([]byte, error) {
	return vfs.ReadFile(ctx, b.Inner, p)
}

// WriteFile is vfs.WriteFile on Inner: Inner's WriteFile when it has one.
func (b Base) WriteFile(ctx context.Context, p vfs.Path, data []byte, mode vfs.WriteMode) error {
	return vfs.WriteFile(ctx, b.Inner, p, data, mode)
}

// CopyFile is vfs.CopyWithMode inside Inner: a server-side copy when Inner
// has one, a streamed copy otherwise.
func (b Base) CopyFile(ctx context.Context, dst, src vfs.Path, mode vfs.WriteMode) (int64, error) {
	return vfs.CopyWithMode(ctx, b.Inner, dst, b.Inner, src, mode)
}

// CleanTemp is vfs.CleanTempBefore on Inner: Inner's CleanTemp when it has
// one; a file system without one leaves no temporary files, and gets the Stat
// of dir (its error, or nil, nil).
func (b Base) CleanTemp(ctx context.Context, dir vfs.Path, cutoff time.Time, dryRun bool) ([]vfs.Path, error) {
	return vfs.CleanTempBefore(ctx, b.Inner, dir, cutoff, dryRun)
}

// RealPath is vfs.RealPath on Inner: Inner's RealPath when it has one; on a
// file system without symbolic links it is p qualified by Inner.
func (b Base) RealPath(ctx context.Context, p vfs.Path) (vfs.Path, error) {
	return vfs.RealPath(ctx, b.Inner, p)
}

// CreateUnsynced is vfs.CreateUnsynced on Inner: Inner's CreateUnsynced
// (vfs.DirSyncer) when it has one; a file system without one syncs at every
// Close, and gets Create.
func (b Base) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return vfs.CreateUnsynced(ctx, b.Inner, p, mode)
}

// SyncDir is vfs.SyncDir on Inner: Inner's SyncDir (vfs.DirSyncer) when it
// has one. On a file system without one, every file was durable when its
// Close returned, so SyncDir returns nil at once, without a request (a layer
// over s3:// does not pay a HEAD and a LIST per directory when a checkpoint
// completes).
func (b Base) SyncDir(ctx context.Context, dir vfs.Path) error {
	return vfs.SyncDir(ctx, b.Inner, dir)
}

// DeleteVersion is vfs.DeleteVersion on Inner: Inner's conditional delete
// when it has one, else a Stat, a comparison and a Delete.
func (b Base) DeleteVersion(ctx context.Context, p vfs.Path, v vfs.Version) error {
	return vfs.DeleteVersion(ctx, b.Inner, p, v)
}

// Unnameable is vfs.Unnameable on Inner: the keys below dir that no path
// names, where Inner can hold such keys; nil otherwise.
func (b Base) Unnameable(ctx context.Context, dir vfs.Path, limit int) ([]string, error) {
	return vfs.Unnameable(ctx, b.Inner, dir, limit)
}

// Close closes Inner when it is an io.Closer (blobfs holds a bucket), and
// returns nil otherwise.
func (b Base) Close() error {
	if c, ok := b.Inner.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// Streams returns fsys with the methods of vfs.FileSystem only, hiding its
// optional interfaces, so that vfs's helpers (vfs.ReadFile, vfs.WriteFile,
// vfs.CopyWithMode) go through its Open and Create. A layer whose Open or
// Create changes what a fast path would skip uses it to implement ReadFile,
// WriteFile or CopyFile: vfs.ReadFile(ctx, layer.Streams(l), p).
func Streams(fsys vfs.FileSystem) vfs.FileSystem { return streamsOnly{fsys} }

type streamsOnly struct{ vfs.FileSystem }

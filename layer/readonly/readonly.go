// Package readonly is a layer that makes a file system read-only, like afero's
// NewReadOnlyFs: reads (Stat, List, Open, OpenBeneath, ReadFile, RealPath,
// Unnameable, a dry-run CleanTemp) reach the file system below, and every
// mutation (Create, CreateUnsynced, WriteFile, CopyFile, Mkdirs, Delete,
// DeleteVersion, Rename, CleanTemp, and RecoverableWriter, so
// vfs.NewRecoverableWriter) fails before it reaches it, with an *fs.PathError
// wrapping fs.ErrPermission that names the path. SyncDir reaches the file
// system below (it writes nothing, and after no write through the view it
// has nothing to make durable). Nothing below is ever changed through it.
package readonly

import (
	"context"
	"fmt"
	"io/fs"
	"time"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// FS is a read-only view of the file system below it.
type FS struct {
	layer.Base
}

// New returns a read-only view of inner.
func New(inner vfs.FileSystem) *FS { return &FS{layer.Base{Inner: inner}} }

// refuse is the error of every mutation.
func (f *FS) refuse(op string, p vfs.Path) error {
	return vfs.NewPathError(op, p, fmt.Errorf("%w: %s is read-only (expected no writes through layer/readonly)",
		fs.ErrPermission, vfs.RedactURL(f.URI())))
}

// Create fails with fs.ErrPermission.
func (f *FS) Create(_ context.Context, p vfs.Path, _ vfs.WriteMode) (vfs.OutputStream, error) {
	return nil, f.refuse("create", p)
}

// WriteFile fails with fs.ErrPermission.
func (f *FS) WriteFile(_ context.Context, p vfs.Path, _ []byte, _ vfs.WriteMode) error {
	return f.refuse("write", p)
}

// CreateUnsynced fails with fs.ErrPermission.
func (f *FS) CreateUnsynced(_ context.Context, p vfs.Path, _ vfs.WriteMode) (vfs.OutputStream, error) {
	return nil, f.refuse("create", p)
}

// CopyFile fails with fs.ErrPermission.
func (f *FS) CopyFile(_ context.Context, dst, _ vfs.Path, _ vfs.WriteMode) (int64, error) {
	return 0, f.refuse("copy", dst)
}

// Mkdirs fails with fs.ErrPermission, even for a directory that exists.
func (f *FS) Mkdirs(_ context.Context, p vfs.Path) error { return f.refuse("mkdir", p) }

// Delete fails with fs.ErrPermission, even for a missing path.
func (f *FS) Delete(_ context.Context, p vfs.Path, _ bool) error { return f.refuse("delete", p) }

// DeleteVersion fails with fs.ErrPermission.
func (f *FS) DeleteVersion(_ context.Context, p vfs.Path, _ vfs.Version) error {
	return f.refuse("delete", p)
}

// Rename fails with fs.ErrPermission.
func (f *FS) Rename(_ context.Context, src, _ vfs.Path) error { return f.refuse("rename", src) }

// CleanTemp with dryRun lists the temporary files below; without, it fails
// with fs.ErrPermission.
func (f *FS) CleanTemp(ctx context.Context, dir vfs.Path, cutoff time.Time, dryRun bool) ([]vfs.Path, error) {
	if !dryRun {
		return nil, f.refuse("clean temp", dir)
	}
	return f.Base.CleanTemp(ctx, dir, cutoff, true)
}

// RecoverableWriter fails with fs.ErrPermission: a read-only view has no
// writer.
func (f *FS) RecoverableWriter() (vfs.RecoverableWriter, error) {
	return nil, f.refuse("recoverable writer", f.WorkingDirectory())
}

package fault

import (
	"context"
	"time"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// Stat may fail.
func (f *FS) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	if _, err := f.inject(ctx, Stat, p); err != nil {
		return vfs.FileStatus{}, err
	}
	return f.Inner.Stat(ctx, p)
}

// List may fail.
func (f *FS) List(ctx context.Context, dir vfs.Path) ([]vfs.FileStatus, error) {
	if _, err := f.inject(ctx, List, dir); err != nil {
		return nil, err
	}
	return f.Inner.List(ctx, dir)
}

// Mkdirs may fail.
func (f *FS) Mkdirs(ctx context.Context, p vfs.Path) error {
	if _, err := f.inject(ctx, Mkdirs, p); err != nil {
		return err
	}
	return f.Inner.Mkdirs(ctx, p)
}

// DeleteVersion may fail as Delete does (before it deletes anything).
func (f *FS) DeleteVersion(ctx context.Context, p vfs.Path, v vfs.Version) error {
	if _, err := f.inject(ctx, Delete, p); err != nil {
		return err
	}
	return f.Base.DeleteVersion(ctx, p, v)
}

// Delete may fail (before it deletes anything).
func (f *FS) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	if _, err := f.inject(ctx, Delete, p); err != nil {
		return err
	}
	return f.Inner.Delete(ctx, p, recursive)
}

// Rename may fail (before it moves anything); rules match the source.
func (f *FS) Rename(ctx context.Context, src, dst vfs.Path) error {
	if _, err := f.inject(ctx, Rename, src); err != nil {
		return err
	}
	return f.Inner.Rename(ctx, src, dst)
}

// CleanTemp may fail.
func (f *FS) CleanTemp(ctx context.Context, dir vfs.Path, cutoff time.Time, dryRun bool) ([]vfs.Path, error) {
	if _, err := f.inject(ctx, CleanTemp, dir); err != nil {
		return nil, err
	}
	return f.Base.CleanTemp(ctx, dir, cutoff, dryRun)
}

// RealPath may fail.
func (f *FS) RealPath(ctx context.Context, p vfs.Path) (vfs.Path, error) {
	if _, err := f.inject(ctx, RealPath, p); err != nil {
		return vfs.Path{}, err
	}
	return f.Base.RealPath(ctx, p)
}

// ReadFile reads through Open when a rule could match it, and uses the fast
// path below otherwise.
func (f *FS) ReadFile(ctx context.Context, p vfs.Path) ([]byte, error) {
	if !f.mayMatch(p, Open, Read, Close) {
		return f.Base.ReadFile(ctx, p)
	}
	return vfs.ReadFile(ctx, layer.Streams(f), p)
}

// WriteFile writes through Create when a rule could match it, and uses the
// fast path below otherwise.
func (f *FS) WriteFile(ctx context.Context, p vfs.Path, data []byte, mode vfs.WriteMode) error {
	if !f.mayMatch(p, Create, Write, Close) {
		return f.Base.WriteFile(ctx, p, data, mode)
	}
	return vfs.WriteFile(ctx, layer.Streams(f), p, data, mode)
}

// CopyFile streams through Open and Create when a rule could match the
// source or the destination, and copies below otherwise.
func (f *FS) CopyFile(ctx context.Context, dst, src vfs.Path, mode vfs.WriteMode) (int64, error) {
	if !f.mayMatch(src, Open, Read, Close) && !f.mayMatch(dst, Create, Write, Close) {
		return f.Base.CopyFile(ctx, dst, src, mode)
	}
	return vfs.CopyWithMode(ctx, layer.Streams(f), dst, layer.Streams(f), src, mode)
}

package chaos

import (
	"context"
	"errors"
	"io/fs"

	"github.com/vfskit/vfskit/vfs"
)

// sweepTemp removes, through reg, the temporary files (.vfskit-tmp-*) that
// killed writers left in each of dirs and below (zero paths and missing
// directories are skipped), as "vfskit clean-temp --older-than 0" would
// (vfs.CleanTemp), then looks again. It returns the paths it removed and
// those still there after the sweep. Stores without temporary files
// (memory://, object stores) give none.
func sweepTemp(ctx context.Context, reg *vfs.Registry, dirs ...vfs.Path) (removed, left []vfs.Path, err error) {
	for _, dir := range dirs {
		if dir.IsZero() {
			continue
		}
		fsys, err := reg.GetPath(ctx, dir)
		if err != nil {
			return removed, left, err
		}
		gone, err := vfs.CleanTemp(ctx, fsys, dir, 0)
		removed = append(removed, gone...)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return removed, left, err
		}
		still, err := vfs.FindTemp(ctx, fsys, dir, 0)
		left = append(left, still...)
		if err != nil {
			return removed, left, err
		}
	}
	return removed, left, nil
}

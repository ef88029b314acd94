package aferofs

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/vfs"
)

var _ vfs.RealPathFS = (*FileSystem)(nil)

// RealPath returns p with every symbolic link in it resolved
// (filepath.EvalSymlinks) on an afero.OsFs; on other afero file systems, which
// have no links, it returns p qualified. A missing path fails with
// fs.ErrNotExist.
func (f *FileSystem) RealPath(ctx context.Context, p vfs.Path) (vfs.Path, error) {
	q, err := f.begin(ctx, "realpath", p)
	if err != nil {
		return vfs.Path{}, err
	}
	if _, ok := f.afs.(*afero.OsFs); !ok {
		return q, nil
	}
	real, err := filepath.EvalSymlinks(name(q))
	if err != nil {
		return vfs.Path{}, vfs.NewPathError("realpath", q, notExist(err))
	}
	r := f.root // joined segment by segment, so every name stays exact
	for _, s := range strings.Split(filepath.ToSlash(real), "/") {
		if s != "" {
			r = r.Join(s)
		}
	}
	return r, nil
}

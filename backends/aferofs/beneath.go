package aferofs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/vfs"
)

var _ vfs.OpenBeneathFS = (*FileSystem)(nil)

// OpenBeneath opens dir/rel for reading without following a symbolic link in
// rel (see vfs.OpenBeneathFS), with Options.OpenBeneath. An afero.Fs without
// links (not an afero.OsFs) opens dir/rel as Open does; an afero.OsFs without
// Options.OpenBeneath fails with errors.ErrUnsupported.
func (f *FileSystem) OpenBeneath(ctx context.Context, dir vfs.Path, rel string) (vfs.InputStream, error) {
	q, err := f.begin(ctx, "open", dir)
	if err != nil {
		return nil, err
	}
	p := q.Join(rel)
	if _, disk := f.afs.(*afero.OsFs); !disk {
		return f.Open(ctx, p)
	}
	if f.opts.OpenBeneath == nil {
		return nil, vfs.NewPathError("open", p, fmt.Errorf("%w: no way to open without following links here", errors.ErrUnsupported))
	}
	for _, s := range strings.Split(rel, "/") {
		if s == "" || s == "." || s == ".." || isTempName(s) {
			return nil, vfs.NewPathError("open", p, fmt.Errorf("%w: %q is not a name below %s", fs.ErrInvalid, rel, q.Redacted()))
		}
	}
	file, err := f.opts.OpenBeneath(name(q), rel)
	if err != nil {
		return nil, vfs.NewPathError("open", p, notExist(err))
	}
	fi, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, pathError("open", p, err)
	}
	if !fi.Mode().IsRegular() {
		file.Close()
		return nil, vfs.NewPathError("open", p, fmt.Errorf("%w: not a regular file (%s) where a file was listed", vfs.ErrChanged, fi.Mode().Type()))
	}
	return &inputStream{file: file, path: p}, nil
}

// ErrLinkInPath is what Options.OpenBeneath returns (wrapped) for a symbolic
// link in the path it was asked to open. It wraps vfs.ErrChanged.
var ErrLinkInPath = fmt.Errorf("%w: a symbolic link is in the path (a directory or file listed there was replaced by a link); it was not followed", vfs.ErrChanged)

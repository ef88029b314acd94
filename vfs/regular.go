package vfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
)

// ErrNotRegular is wrapped by OpenRegular's error for a FIFO, a device or a
// socket. It wraps fs.ErrInvalid.
var ErrNotRegular = fmt.Errorf("not a regular file: %w", fs.ErrInvalid)

// OpenRegular opens p for reading when it is a regular file. A FIFO, device
// or socket fails with an *fs.PathError wrapping ErrNotRegular without being
// read — where the file system can tell before opening, without being opened
// at all — so it can neither block nor act on a device. A directory fails
// with ErrIsDir, a missing file with fs.ErrNotExist, as Open does.
//
// A file system that opens without following links (OpenBeneathFS, file://
// on Linux) opens p non-blocking and checks the open file's type: no Stat.
// Another file:// (one whose OpenBeneath answers errors.ErrUnsupported,
// another system) is asked for p's status first (one Stat). Every other
// scheme is taken to have no such files (object stores, memory://, and a
// layer over them, whose OpenBeneath answers errors.ErrUnsupported): it is
// Open. A backend of another scheme that holds special files implements
// OpenBeneathFS.
func OpenRegular(ctx context.Context, fsys FileSystem, p Path) (InputStream, error) {
	stat := false // a link or a special file at p: tell which from its status
	if b, ok := fsys.(OpenBeneathFS); ok && p.Depth() > 0 {
		in, err := b.OpenBeneath(ctx, p.Parent(), p.Name())
		switch {
		case err == nil:
			return in, nil
		case errors.Is(err, ErrChanged) && !errors.Is(err, fs.ErrNotExist):
			stat = true
		case !errors.Is(err, errors.ErrUnsupported):
			return nil, err
		}
	}
	if !stat && (fsys.Kind() == KindObjectStore || fsys.URI().Scheme != "file") {
		return fsys.Open(ctx, p)
	}
	st, err := fsys.Stat(ctx, p)
	if err != nil {
		return nil, err
	}
	if st.Special != 0 {
		return nil, NewPathError("open", p, fmt.Errorf("%w (%s): not opened", ErrNotRegular, st.Special))
	}
	return fsys.Open(ctx, p)
}

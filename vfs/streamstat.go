package vfs

import (
	"context"
	"errors"
)

// StreamStater is implemented by input streams that can tell the status of
// the file they read — the version they read — without asking the file
// system again: an object store's GET answers with the object's size and
// modification time. StatStream uses it when present.
type StreamStater interface {
	// Stat returns the status of the file the stream reads: its path, size
	// and modification time, those of the version whose bytes the stream
	// returns. Once a Read or ReadAt has returned a byte it sends no request;
	// before that it may send one (an object store's HEAD, which then fixes
	// the version the stream reads). A missing file fails with
	// fs.ErrNotExist, a closed stream with fs.ErrClosed; an error that
	// errors.Is errors.ErrUnsupported means the stream cannot tell (the
	// store's response lacked it), and StatStream then asks the file system.
	Stat() (FileStatus, error)
}

// StatStream returns the status of the file at p that in, opened from fsys,
// reads: the stream's own (StreamStater), which after a read costs no
// request, else fsys.Stat(ctx, p) — which, when the file has been replaced
// since in began reading, describes the new version. The status's Path is p
// qualified by fsys, as Stat's is, whatever path the stream knows its file by
// (a layer such as layer/sub hands out the streams of the file system below,
// where the file has another name).
func StatStream(ctx context.Context, fsys FileSystem, p Path, in InputStream) (FileStatus, error) {
	if s, ok := in.(StreamStater); ok {
		st, err := s.Stat()
		if err == nil {
			if st.Path, err = Qualify("stat", fsys, p); err != nil {
				return FileStatus{}, err
			}
			return st, nil
		}
		if !errors.Is(err, errors.ErrUnsupported) {
			return FileStatus{}, err
		}
	}
	return fsys.Stat(ctx, p)
}

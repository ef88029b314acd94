package aferofs

import (
	"context"
	"errors"
	"io"
	"io/fs"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/vfs"
)

// Open opens a file for reading. A directory fails with vfs.ErrIsDir, a missing
// file with fs.ErrNotExist. The stream reads the file as it was when opened,
// even if it is replaced or deleted meanwhile (on afero.MemMapFs and POSIX
// disks).
func (f *FileSystem) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	q, err := f.begin(ctx, "open", p)
	if err != nil {
		return nil, err
	}
	file, err := f.afs.Open(name(q))
	if err != nil {
		return nil, vfs.NewPathError("open", q, notExist(err))
	}
	fi, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, pathError("open", q, err)
	}
	if fi.IsDir() {
		file.Close()
		return nil, vfs.NewPathError("open", q, errorf(vfs.ErrIsDir, "cannot open a directory for reading"))
	}
	return &inputStream{file: file, path: q}, nil
}

// inputStream reads an afero.File through ReadAt with its own offset, which
// gives io.ReaderAt and io.Seeker their documented semantics even where the
// afero.File's do not (afero's mem.File returns short ReadAt reads without an
// error and io.ErrUnexpectedEOF past the end).
type inputStream struct {
	file   afero.File
	path   vfs.Path
	off    int64
	closed bool
}

var _ vfs.InputStream = (*inputStream)(nil)

// Read reads from the current offset.
func (s *inputStream) Read(b []byte) (int, error) {
	if s.closed {
		return 0, vfs.NewPathError("read", s.path, fs.ErrClosed)
	}
	if len(b) == 0 {
		return 0, nil
	}
	n, err := s.readAt(b, s.off)
	s.off += int64(n)
	if n > 0 && err == io.EOF {
		err = nil
	}
	return n, err
}

// ReadAt reads len(b) bytes at off without moving the offset Read uses. It
// returns io.EOF when fewer bytes remain.
func (s *inputStream) ReadAt(b []byte, off int64) (int, error) {
	if s.closed {
		return 0, vfs.NewPathError("read", s.path, fs.ErrClosed)
	}
	if off < 0 {
		return 0, vfs.NewPathError("read", s.path, errorf(fs.ErrInvalid, "negative offset %d", off))
	}
	return s.readAt(b, off)
}

func (s *inputStream) readAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		m, err := s.file.ReadAt(b[n:], off+int64(n))
		n += m
		switch {
		case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
			return n, io.EOF
		case err != nil:
			return n, pathError("read", s.path, err)
		case m == 0:
			return n, io.EOF
		}
	}
	return n, nil
}

// Seek sets the offset for the next Read. Seeking past the end is allowed (Read
// then returns io.EOF); a negative result fails with fs.ErrInvalid.
func (s *inputStream) Seek(offset int64, whence int) (int64, error) {
	if s.closed {
		return 0, vfs.NewPathError("seek", s.path, fs.ErrClosed)
	}
	var base int64
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		base = s.off
	case io.SeekEnd:
		fi, err := s.file.Stat()
		if err != nil {
			return 0, pathError("seek", s.path, err)
		}
		base = fi.Size()
	default:
		return 0, vfs.NewPathError("seek", s.path, errorf(fs.ErrInvalid, "whence %d (expected io.SeekStart, io.SeekCurrent or io.SeekEnd)", whence))
	}
	if base+offset < 0 {
		return 0, vfs.NewPathError("seek", s.path, errorf(fs.ErrInvalid, "offset %d from %d is before the start", offset, base))
	}
	s.off = base + offset
	return s.off, nil
}

// Close releases the file. Closing twice returns an error wrapping fs.ErrClosed.
func (s *inputStream) Close() error {
	if s.closed {
		return vfs.NewPathError("close", s.path, fs.ErrClosed)
	}
	s.closed = true
	if err := s.file.Close(); err != nil {
		return pathError("close", s.path, err)
	}
	return nil
}

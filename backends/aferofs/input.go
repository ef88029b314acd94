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
//
// A file that is not a regular file and cannot seek (a pipe, a FIFO, a terminal
// or another character device, a socket: /dev/stdin, for example) is streamed:
// Read reads it sequentially, and ReadAt and any Seek other than
// Seek(0, io.SeekCurrent) fail with an error wrapping errors.ErrUnsupported.
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
	return &inputStream{file: file, path: q, stream: !fi.Mode().IsRegular() && !seekable(file)}, nil
}

// seekable reports whether file can seek (a pipe or a character device
// cannot; ReadAt on them fails with "illegal seek").
func seekable(file afero.File) bool {
	_, err := file.Seek(0, io.SeekCurrent)
	return err == nil
}

// errNotSeekable is the error of ReadAt and Seek on a streamed file (see Open).
func (s *inputStream) errNotSeekable(op string) error {
	return vfs.NewPathError(op, s.path, errorf(errors.ErrUnsupported, "not a regular file (a pipe or a device): it can only be read sequentially"))
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
	// stream says that the file cannot seek: Read reads it sequentially
	// (see Open).
	stream bool
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
	if s.stream {
		n, err := s.file.Read(b)
		s.off += int64(n)
		if err != nil && err != io.EOF {
			err = pathError("read", s.path, err)
		}
		return n, err
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
	if s.stream {
		return 0, s.errNotSeekable("read")
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
	if s.stream {
		if offset == 0 && whence == io.SeekCurrent {
			return s.off, nil
		}
		return 0, s.errNotSeekable("seek")
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

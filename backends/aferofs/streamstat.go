package aferofs

import (
	"io/fs"

	"github.com/vfskit/vfskit/vfs"
)

var _ vfs.StreamStater = (*inputStream)(nil)

// Stat returns the status of the file the stream reads, from the open file
// itself (an fstat on disk): the version the stream reads even when the path
// has since been replaced, and no lookup of the path. It is what
// vfs.StatStream uses.
func (s *inputStream) Stat() (vfs.FileStatus, error) {
	if s.closed {
		return vfs.FileStatus{}, vfs.NewPathError("stat", s.path, fs.ErrClosed)
	}
	fi, err := s.file.Stat()
	if err != nil {
		return vfs.FileStatus{}, pathError("stat", s.path, err)
	}
	return status(s.path, fi), nil
}

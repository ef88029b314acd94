package aferofs

import (
	"errors"
	"io"
	"io/fs"

	"github.com/vfskit/vfskit/vfs"
)

// writebackEvery is how many bytes a stream writing a file on disk (with
// Options.Durable) lets pile up before it starts writing them back
// (startWriteback).
const writebackEvery = 8 << 20

// WritesRanges reports whether WriteAt may be used: for a temporary file on
// disk (afero.OsFs), which several goroutines can write at once (vfs.RangeWriter).
func (s *outputStream) WritesRanges() bool { return s.onDisk() }

// WriteAt writes b at off of the temporary file on disk, past its end if
// need be; calls may overlap in time with each other (each is a pwrite of
// its own), not with Write. Pos is then the end of the furthest byte
// written. With Options.Durable the bytes are sent to disk at once,
// without waiting (startWriteback). A failure discards the stream, as a
// failed Write does. Where the stream does not write a file on disk
// (WritesRanges is false) it fails with an error wrapping
// errors.ErrUnsupported and changes nothing.
func (s *outputStream) WriteAt(b []byte, off int64) (int, error) {
	if !s.onDisk() {
		return 0, vfs.NewPathError("write", s.path, errorf(errors.ErrUnsupported, "writes at offsets are for files on disk"))
	}
	if off < 0 {
		return 0, vfs.NewPathError("write", s.path, errorf(fs.ErrInvalid, "negative offset %d", off))
	}
	s.mu.Lock()
	err := s.usableLocked("write")
	if err == nil {
		err = s.flushLocked("write")
	}
	file := s.file
	s.mu.Unlock()
	if err != nil {
		return 0, err
	}
	n, err := file.(io.WriterAt).WriteAt(b, off)
	if err == nil && s.fsys.opts.Durable {
		startWriteback(file, off, int64(n))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pos = max(s.pos, off+int64(n))
	if err != nil {
		s.discardLocked(pathError("write", s.path, err))
		return n, s.err
	}
	return n, nil
}

// writtenBackLocked starts the writeback of what a sequential Write put in the
// temporary file on disk since the last one, once that is writebackEvery
// bytes (with Options.Durable); the caller holds s.mu.
func (s *outputStream) writtenBackLocked() {
	end := s.pos
	if s.buf != nil {
		end -= int64(s.buf.Buffered())
	}
	if end-s.wb < writebackEvery || !s.onDisk() {
		return
	}
	startWriteback(s.file, s.wb, end-s.wb)
	s.wb = end
}

var _ vfs.RangeWriter = (*outputStream)(nil)

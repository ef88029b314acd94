package memfs

import (
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
)

// handle is an open file or directory of the tree (an afero.File). Like an
// *os.File it is not safe for concurrent use, except ReadAt and WriteAt, which do
// not use the offset. A handle keeps its node: a file renamed over or removed
// stays readable through the handles opened before.
//
// A file's handle is kept small: the one of a file from CreateHidden lives in
// the file's own allocation for as long as the file does.
type handle struct {
	fs                          *tree
	node                        *node
	name                        string
	off                         int64
	read, write, append, closed bool
	dir                         *listing // the listing, taken at the first Readdir
	hidden                      *hidden  // for a file from CreateHidden: what it needs to publish
}

// listing is what Readdir has listed of a directory and how far it has returned.
type listing struct {
	infos []*info
	off   int
}

func (h *handle) check(op string, want bool) error {
	switch {
	case h.closed:
		return pathErr(op, h.name, os.ErrClosed)
	case !want:
		return pathErr(op, h.name, syscall.EBADF)
	case h.node.entries != nil && op != "readdir":
		return pathErr(op, h.name, syscall.EISDIR)
	}
	return nil
}

// Name returns the name the handle was opened with.
func (h *handle) Name() string { return h.name }

// Close closes the handle; closing twice fails with os.ErrClosed.
func (h *handle) Close() error {
	if h.closed {
		return pathErr("close", h.name, os.ErrClosed)
	}
	h.closed = true
	return nil
}

// Read reads at the offset and moves it.
func (h *handle) Read(b []byte) (int, error) {
	n, err := h.ReadAt(b, h.off)
	h.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// ReadAt reads len(b) bytes at off; fewer only with io.EOF.
func (h *handle) ReadAt(b []byte, off int64) (int, error) {
	if err := h.check("read", h.read); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, pathErr("read", h.name, syscall.EINVAL)
	}
	n := h.node.readAt(b, off)
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// Seek sets the offset for the next Read or Write.
func (h *handle) Seek(offset int64, whence int) (int64, error) {
	if h.closed {
		return 0, pathErr("seek", h.name, os.ErrClosed)
	}
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += h.off
	case io.SeekEnd:
		offset += h.node.length()
	default:
		return 0, pathErr("seek", h.name, syscall.EINVAL)
	}
	if offset < 0 {
		return 0, pathErr("seek", h.name, syscall.EINVAL)
	}
	h.off = offset
	return offset, nil
}

// Write writes at the offset (at the end with O_APPEND) and moves it.
func (h *handle) Write(b []byte) (int, error) {
	if err := h.check("write", h.write); err != nil {
		return 0, err
	}
	if h.append {
		h.off = h.node.length()
	}
	h.node.writeAt(b, h.off, h.hidden != nil)
	h.off += int64(len(b))
	return len(b), nil
}

// WriteAt writes b at off without moving the offset.
func (h *handle) WriteAt(b []byte, off int64) (int, error) {
	if err := h.check("write", h.write); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, pathErr("write", h.name, syscall.EINVAL)
	}
	h.node.writeAt(b, off, h.hidden != nil)
	return len(b), nil
}

// WriteString writes s.
func (h *handle) WriteString(s string) (int, error) { return h.Write([]byte(s)) }

// Truncate sets the file's size.
func (h *handle) Truncate(size int64) error {
	if err := h.check("truncate", h.write); err != nil {
		return err
	}
	if size < 0 {
		return pathErr("truncate", h.name, syscall.EINVAL)
	}
	h.node.truncate(size)
	return nil
}

// Sync does nothing: memory has nothing to flush.
func (h *handle) Sync() error {
	if h.closed {
		return pathErr("sync", h.name, os.ErrClosed)
	}
	return nil
}

// Stat returns the status of the handle's node.
func (h *handle) Stat() (os.FileInfo, error) {
	if h.closed {
		return nil, pathErr("stat", h.name, os.ErrClosed)
	}
	h.fs.mu.RLock()
	defer h.fs.mu.RUnlock()
	return h.node.info(), nil
}

// Readdir returns the entries of the directory sorted by name, like
// os.File.Readdir: all remaining ones when count <= 0, else at most count and
// io.EOF at the end.
func (h *handle) Readdir(count int) ([]os.FileInfo, error) {
	if err := h.check("readdir", true); err != nil {
		return nil, err
	}
	if h.node.entries == nil {
		return nil, pathErr("readdir", h.name, syscall.ENOTDIR)
	}
	if h.dir == nil {
		infos := h.fs.readdir(h.node)
		slices.SortFunc(infos, func(a, b *info) int { return strings.Compare(a.name, b.name) })
		h.dir = &listing{infos: infos}
	}
	rest := h.dir.infos[h.dir.off:]
	if count > 0 {
		if len(rest) == 0 {
			return nil, io.EOF
		}
		rest = rest[:min(count, len(rest))]
	}
	h.dir.off += len(rest)
	out := make([]os.FileInfo, len(rest))
	for i, fi := range rest {
		out[i] = fi
	}
	return out, nil
}

// Readdirnames is Readdir's names.
func (h *handle) Readdirnames(count int) ([]string, error) {
	infos, err := h.Readdir(count)
	names := make([]string, len(infos))
	for i, fi := range infos {
		names[i] = fi.Name()
	}
	return names, err
}

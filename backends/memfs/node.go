package memfs

import (
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Chunk sizes of file contents: a new chunk is as large as the file so far,
// within these bounds, so appending never copies what was written before (a
// single growing slice copies everything at each doubling) and a file costs at
// most about twice its size.
const (
	minChunk = 512
	maxChunk = 64 << 20
)

// node is a file or a directory of the tree.
type node struct {
	// Guarded by tree.mu.
	name    string
	entries map[string]*node // non-nil exactly for directories

	// Guarded by mu.
	mu      sync.RWMutex
	mode    os.FileMode
	modTime time.Time
	chunks  [][]byte // the contents: every chunk is full except the last
	size    int64
	inline  [1][]byte // backing array of chunks for files of one chunk

	// cached is the last status snapshot, shared by the Stat calls until the
	// node changes (every change stores nil, holding mu or tree.mu as above).
	cached atomic.Pointer[info]
}

func newNode(name string, dir bool, perm os.FileMode) *node {
	n := &node{}
	n.init(name, dir, perm, time.Now())
	return n
}

// init sets up a new node.
func (n *node) init(name string, dir bool, perm os.FileMode, modTime time.Time) {
	n.name, n.mode, n.modTime = name, perm&os.ModePerm, modTime
	if dir {
		n.entries = map[string]*node{}
		n.mode |= os.ModeDir
	}
}

// add and remove change a directory's entries; the caller holds tree.mu.
func (n *node) add(name string, c *node) { n.entries[name] = c }
func (n *node) remove(name string)       { delete(n.entries, name) }

// info returns a snapshot of the node's status; the caller holds tree.mu (for
// the name).
func (n *node) info() *info {
	if fi := n.cached.Load(); fi != nil {
		return fi
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	fi := &info{name: n.name, size: n.size, mode: n.mode, modTime: n.modTime}
	if n.entries != nil {
		fi.size = 0
	}
	n.cached.Store(fi)
	return fi
}

// changed drops the status snapshot; the caller holds mu (contents, mode,
// time) or tree.mu (name).
func (n *node) changed() { n.cached.Store(nil) }

// writeAt writes b at off, extending the file (with zeros up to off if
// needed), and sets the modification time. A hidden file (from CreateHidden,
// not yet published) is reached only through its one handle, which one
// goroutine uses at a time (see aferofs.Publisher): its writes take no lock
// (two of the lock's atomic operations per Write are a measurable part of a
// small file) and set no time (it gets one when published).
func (n *node) writeAt(b []byte, off int64, hidden bool) {
	if hidden {
		n.writeAtLocked(b, off)
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.writeAtLocked(b, off)
	n.modTime = time.Now()
	n.changed()
}

// writeAtLocked is writeAt's write; the caller holds mu or owns the hidden node.
func (n *node) writeAtLocked(b []byte, off int64) {
	if off != n.size {
		end := off + int64(len(b))
		n.flatten(max(end, n.size))
		n.resize(max(end, n.size))
		copy(n.chunks[0][off:], b)
	} else {
		n.append(b)
	}
}

// append adds b at the end; the caller holds mu.
func (n *node) append(b []byte) {
	for len(b) > 0 {
		if k := len(n.chunks); k > 0 {
			last := n.chunks[k-1]
			if free := cap(last) - len(last); free > 0 {
				m := min(free, len(b))
				n.chunks[k-1] = append(last, b[:m]...)
				n.size += int64(m)
				b = b[m:]
				continue
			}
		}
		if n.chunks == nil {
			n.chunks = n.inline[:0]
		}
		// A new chunk starts with as much of b as fits, copied while allocating,
		// so only the spare capacity is zeroed.
		size := max(len(b), int(min(max(n.size, minChunk), maxChunk)))
		m := min(size, len(b))
		var chunk []byte
		if m == size {
			chunk = append([]byte(nil), b[:m]...)
		} else {
			chunk = append(b[:m:m], make([]byte, size-m)...)[:m]
		}
		n.chunks = append(n.chunks, chunk)
		n.size += int64(m)
		b = b[m:]
	}
}

// flatten makes the contents one chunk with capacity for at least c bytes; the
// caller holds mu. Only writes that do not append and truncation need it.
func (n *node) flatten(c int64) {
	if len(n.chunks) == 1 && int64(cap(n.chunks[0])) >= c {
		return
	}
	one := make([]byte, 0, c)
	for _, ch := range n.chunks {
		one = append(one, ch...)
	}
	n.chunks = append(n.inline[:0], one)
}

// truncate sets the size, cutting the contents or extending them with zeros.
func (n *node) truncate(size int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case size == 0:
		n.chunks, n.inline[0] = nil, nil
	case size != n.size:
		n.flatten(size)
		n.resize(size)
	}
	n.size = size
	n.modTime = time.Now()
	n.changed()
}

// resize sets the length of the single chunk flatten made, zeroing what it adds
// (the capacity may hold bytes cut off by an earlier truncate); the caller holds
// mu.
func (n *node) resize(size int64) {
	one := n.chunks[0]
	if size > int64(len(one)) {
		clear(one[len(one):size])
	}
	n.chunks[0] = one[:size]
	n.size = size
}

// readAt copies the contents at off into b and returns how many bytes it copied
// (fewer than len(b) only at the end of the file).
func (n *node) readAt(b []byte, off int64) int {
	n.mu.RLock()
	defer n.mu.RUnlock()
	done := 0
	start := int64(0)
	for _, ch := range n.chunks {
		end := start + int64(len(ch))
		if off < end && done < len(b) {
			done += copy(b[done:], ch[off-start:])
			off = end
		}
		start = end
	}
	return done
}

// length returns the size of the contents.
func (n *node) length() int64 {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.size
}

// info is an os.FileInfo snapshot of a node.
type info struct {
	name    string
	size    int64
	mode    os.FileMode
	modTime time.Time
}

func (fi *info) Name() string       { return fi.name }
func (fi *info) Size() int64        { return fi.size }
func (fi *info) Mode() os.FileMode  { return fi.mode }
func (fi *info) ModTime() time.Time { return fi.modTime }
func (fi *info) IsDir() bool        { return fi.mode.IsDir() }
func (fi *info) Sys() any           { return nil }

package memfs

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/backends/aferofs"
)

// tree is the afero.Fs under memory://: a tree of directories, each holding a map
// of its entries, so every operation costs O(depth of the path) whatever the
// number of files, and a rename moves one map entry (afero.MemMapFs keeps one flat
// map and renames by scanning all of it).
//
// mu guards the shape of the tree (every directory's entries and every node's
// name); a node's own mutex guards its contents, mode and times. A listing is a
// snapshot taken under mu, so it names each entry once even while files are
// renamed over each other.
type tree struct {
	mu   sync.RWMutex
	root *node
	// moves counts the changes that can take a directory out of the tree or
	// move it (Remove, RemoveAll, Rename, clear): while it stays the same, a
	// directory found by a walk is still where the walk found it.
	moves uint64
}

var (
	_ afero.Fs          = (*tree)(nil)
	_ afero.Lstater     = (*tree)(nil)
	_ aferofs.Publisher = (*tree)(nil)
	_ aferofs.Statuser  = (*tree)(nil)
	_ afero.File        = (*handle)(nil)
	_ os.FileInfo       = (*info)(nil)
)

func newTree() *tree {
	return &tree{root: newNode("/", true, 0o755)}
}

// clean turns an afero name into the '/'-separated absolute path the tree walks:
// relative names start at the root, as in afero.MemMapFs.
func clean(name string) string {
	if isClean(name) {
		return name // what the aferofs engine passes: no copy, no second scan
	}
	if filepath.Separator != '/' {
		name = filepath.ToSlash(name)
	}
	if name == "" || name[0] != '/' {
		name = "/" + name
	}
	return path.Clean(name)
}

// isClean reports whether name is already what clean returns: absolute, with
// no empty, "." or ".." element, no trailing slash and no other separator.
func isClean(name string) bool {
	if name == "" || name[0] != '/' {
		return false
	}
	start := 1
	for i := 1; i < len(name); i++ {
		switch c := name[i]; {
		case c == '/':
			if !element(name[start:i]) {
				return false
			}
			start = i + 1
		case c == filepath.Separator:
			return false
		}
	}
	return len(name) == 1 || element(name[start:])
}

// element reports whether e is a name a clean path can hold.
func element(e string) bool { return e != "" && e != "." && e != ".." }

// split returns the parent directory and the last element of a cleaned path;
// the root has the parent "" and the name "/".
func split(p string) (dir, base string) {
	if p == "/" {
		return "", "/"
	}
	i := strings.LastIndexByte(p, '/')
	if i == 0 {
		return "/", p[1:]
	}
	return p[:i], p[i+1:]
}

// cut returns the first element of a relative '/'-separated path and the rest.
func cut(p string) (elem, rest string) {
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return p, ""
}

// lookupLocked returns the node at the cleaned path p. The error is ENOENT, or
// ENOTDIR when a file is in the way.
func (t *tree) lookupLocked(p string) (*node, error) {
	n, _, err := t.walkLocked(p, false)
	return n, err
}

// findLocked is lookupLocked of an afero name that may not be clean: a clean
// name (what the aferofs engine passes) is walked as it is, in one pass.
func (t *tree) findLocked(name string) (*node, error) {
	if name != "" && name[0] == '/' {
		if n, clean, err := t.walkLocked(name, true); clean {
			return n, err
		}
	}
	return t.lookupLocked(clean(name))
}

// walkLocked walks the absolute '/'-separated path p from the root. With
// check, it stops at an element that a clean path cannot hold and returns
// clean false.
func (t *tree) walkLocked(p string, check bool) (n *node, clean bool, err error) {
	n = t.root
	for rest := p[1:]; rest != ""; {
		var elem string
		elem, rest = cut(rest)
		if check && (!element(elem) || filepath.Separator != '/' && strings.IndexByte(elem, filepath.Separator) >= 0) {
			return nil, false, nil
		}
		if n.entries == nil {
			return nil, true, syscall.ENOTDIR
		}
		child, ok := n.entries[elem]
		if !ok {
			return nil, true, fs.ErrNotExist
		}
		n = child
	}
	return n, true, nil
}

// parentLocked returns the directory that holds (or would hold) the cleaned path p
// and p's last element.
func (t *tree) parentLocked(p string) (*node, string, error) {
	dir, base := split(p)
	if dir == "" {
		return nil, "", syscall.EINVAL // the root has no parent
	}
	parent, err := t.lookupLocked(dir)
	if err != nil {
		return nil, "", err
	}
	if parent.entries == nil {
		return nil, "", syscall.ENOTDIR
	}
	return parent, base, nil
}

func pathErr(op, name string, err error) error {
	return &os.PathError{Op: op, Path: name, Err: err}
}

// Name returns "memfs".
func (t *tree) Name() string { return "memfs" }

// Create creates or truncates a file, like os.Create.
func (t *tree) Create(name string) (afero.File, error) {
	return t.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// Mkdir creates a directory whose parent exists.
func (t *tree) Mkdir(name string, perm os.FileMode) error {
	p := clean(name)
	t.mu.Lock()
	defer t.mu.Unlock()
	parent, base, err := t.parentLocked(p)
	if err == syscall.EINVAL {
		err = fs.ErrExist
	}
	if err != nil {
		return pathErr("mkdir", name, err)
	}
	if _, ok := parent.entries[base]; ok {
		return pathErr("mkdir", name, fs.ErrExist)
	}
	parent.add(base, newNode(base, true, perm))
	return nil
}

// MkdirAll creates a directory and its missing parents; an existing directory is
// fine, a file in the way fails with ENOTDIR.
func (t *tree) MkdirAll(name string, perm os.FileMode) error {
	p := clean(name)
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, err := t.mkdirsLocked(p, perm); err != nil {
		return pathErr("mkdir", name, err)
	}
	return nil
}

// mkdirsLocked returns the directory at the cleaned path p, creating it and its
// missing parents with perm.
func (t *tree) mkdirsLocked(p string, perm os.FileMode) (*node, error) {
	n := t.root
	for rest := p[1:]; rest != ""; {
		var elem string
		elem, rest = cut(rest)
		child, ok := n.entries[elem]
		if !ok {
			child = newNode(elem, true, perm)
			n.add(elem, child)
		}
		if child.entries == nil {
			return nil, syscall.ENOTDIR
		}
		n = child
	}
	return n, nil
}

// Open opens a file or directory for reading.
func (t *tree) Open(name string) (afero.File, error) {
	return t.OpenFile(name, os.O_RDONLY, 0)
}

// OpenFile opens a file with os.OpenFile's flags: O_CREATE (the parent must
// exist), O_EXCL, O_TRUNC, O_APPEND and the access modes.
func (t *tree) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	write := flag&(os.O_WRONLY|os.O_RDWR) != 0
	var n *node
	if flag&os.O_CREATE == 0 {
		t.mu.RLock()
		found, err := t.findLocked(name)
		t.mu.RUnlock()
		if err != nil {
			return nil, pathErr("open", name, err)
		}
		n = found
	} else {
		t.mu.Lock()
		parent, base, err := t.parentLocked(clean(name))
		switch {
		case err == syscall.EINVAL:
			n = t.root
		case err != nil:
			t.mu.Unlock()
			return nil, pathErr("open", name, err)
		default:
			n = parent.entries[base]
			if n != nil && flag&os.O_EXCL != 0 {
				t.mu.Unlock()
				return nil, pathErr("open", name, fs.ErrExist)
			}
			if n == nil {
				n = newNode(base, false, perm)
				parent.add(base, n)
			}
		}
		t.mu.Unlock()
	}
	if n.entries != nil && write {
		return nil, pathErr("open", name, syscall.EISDIR)
	}
	if write && flag&os.O_TRUNC != 0 {
		n.truncate(0)
	}
	h := &handle{fs: t, node: n, name: name, write: write, read: flag&os.O_WRONLY == 0, append: flag&os.O_APPEND != 0}
	return h, nil
}

// Remove removes a file or an empty directory.
func (t *tree) Remove(name string) error {
	p := clean(name)
	t.mu.Lock()
	defer t.mu.Unlock()
	parent, base, err := t.parentLocked(p)
	if err != nil {
		return pathErr("remove", name, err)
	}
	n, ok := parent.entries[base]
	switch {
	case !ok:
		return pathErr("remove", name, fs.ErrNotExist)
	case len(n.entries) > 0:
		return pathErr("remove", name, syscall.ENOTEMPTY)
	}
	parent.remove(base)
	t.moves++
	return nil
}

// RemoveAll removes a file or a directory with everything below it; a missing
// path is fine. The root keeps existing and is emptied.
func (t *tree) RemoveAll(name string) error {
	p := clean(name)
	t.mu.Lock()
	defer t.mu.Unlock()
	if p == "/" {
		t.clearLocked()
		return nil
	}
	parent, base, err := t.parentLocked(p)
	if err == fs.ErrNotExist || err == syscall.ENOTDIR {
		return nil
	}
	if err != nil {
		return pathErr("removeall", name, err)
	}
	if _, ok := parent.entries[base]; ok {
		parent.remove(base)
		t.moves++
	}
	return nil
}

// Rename moves a file or directory (with everything below it) in O(depth). Like
// rename(2) it replaces a file, or an empty directory with a directory; the
// parent of newname must exist.
func (t *tree) Rename(oldname, newname string) error {
	op, np := clean(oldname), clean(newname)
	t.mu.Lock()
	defer t.mu.Unlock()
	oldParent, oldBase, err := t.parentLocked(op)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	n, ok := oldParent.entries[oldBase]
	if !ok {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: fs.ErrNotExist}
	}
	if op == np {
		return nil
	}
	if n.entries != nil && strings.HasPrefix(np, op+"/") {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: syscall.EINVAL}
	}
	newParent, newBase, err := t.parentLocked(np)
	if err != nil {
		if err == syscall.EINVAL {
			err = syscall.EBUSY // the root
		}
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	if old, ok := newParent.entries[newBase]; ok {
		switch {
		case old.entries != nil && n.entries == nil:
			err = syscall.EISDIR
		case old.entries == nil && n.entries != nil:
			err = syscall.ENOTDIR
		case len(old.entries) > 0:
			err = syscall.ENOTEMPTY
		}
		if err != nil {
			return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
		}
	}
	oldParent.remove(oldBase)
	t.moves++
	n.name = newBase
	n.changed()
	newParent.add(newBase, n)
	return nil
}

// Stat returns a snapshot of a file's or directory's status.
func (t *tree) Stat(name string) (os.FileInfo, error) {
	t.mu.RLock()
	n, err := t.findLocked(name)
	var fi *info
	if err == nil {
		fi = n.info()
	}
	t.mu.RUnlock()
	if err != nil {
		return nil, pathErr("stat", name, err)
	}
	return fi, nil
}

// Status is Stat without an os.FileInfo (see aferofs.Statuser): it reads the
// node under its lock and allocates nothing.
func (t *tree) Status(name string) (size int64, modTime time.Time, dir bool, err error) {
	t.mu.RLock()
	n, err := t.findLocked(name)
	t.mu.RUnlock()
	if err != nil {
		return 0, time.Time{}, false, pathErr("stat", name, err)
	}
	n.mu.RLock()
	size, modTime, dir = n.size, n.modTime, n.mode.IsDir()
	n.mu.RUnlock()
	if dir {
		size = 0
	}
	return size, modTime, dir, nil
}

// LstatIfPossible is Stat: the tree has no symbolic links.
func (t *tree) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	fi, err := t.Stat(name)
	return fi, false, err
}

// Chmod sets the permission bits.
func (t *tree) Chmod(name string, mode os.FileMode) error {
	return t.change("chmod", name, func(n *node) { n.mode = n.mode&os.ModeType | mode&os.ModePerm })
}

// Chown is accepted and ignored: the tree has no owners.
func (t *tree) Chown(name string, _, _ int) error {
	return t.change("chown", name, func(*node) {})
}

// Chtimes sets the modification time (the tree keeps no access time).
func (t *tree) Chtimes(name string, _ time.Time, mtime time.Time) error {
	return t.change("chtimes", name, func(n *node) { n.modTime = mtime })
}

func (t *tree) change(op, name string, f func(*node)) error {
	t.mu.RLock()
	n, err := t.lookupLocked(clean(name))
	t.mu.RUnlock()
	if err != nil {
		return pathErr(op, name, err)
	}
	n.mu.Lock()
	f(n)
	n.changed()
	n.mu.Unlock()
	return nil
}

// clear empties the tree: files being written then fail to publish.
func (t *tree) clear() {
	t.mu.Lock()
	t.clearLocked()
	t.mu.Unlock()
}

// clearLocked gives the tree a new, empty root, so that no walk reaches a
// directory of before, not even the old root.
func (t *tree) clearLocked() {
	t.root = newNode("/", true, t.root.mode.Perm())
	t.moves++
}

// errMoved is why a hidden file cannot be published.
var errMoved = fmt.Errorf("%w: the directory was removed, moved or emptied while the file was being written", fs.ErrNotExist)

// CreateHidden returns a new file that is not in the tree until Publish puts it
// at name, in the directory that holds name now; it makes the missing
// directories on the way, in the same walk. See aferofs.Publisher.
func (t *tree) CreateHidden(name string, noReplace bool) (afero.File, error) {
	p := clean(name)
	dir, base := split(p)
	if dir == "" {
		return nil, pathErr("open", name, syscall.EISDIR)
	}
	// The directory usually exists: then the tree does not change, and a
	// read lock (cheaper, and shared with lookups) is enough.
	t.mu.RLock()
	parent, err := t.lookupLocked(dir)
	if err == nil && parent.entries != nil {
		f, err := t.hiddenLocked(name, parent, base, noReplace)
		t.mu.RUnlock()
		return f, err
	}
	t.mu.RUnlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if parent, err = t.mkdirsLocked(dir, 0o777); err != nil {
		return nil, pathErr("open", name, err)
	}
	return t.hiddenLocked(name, parent, base, noReplace)
}

// hiddenLocked is CreateHidden in the directory parent, the caller holding mu
// (read or write).
func (t *tree) hiddenLocked(name string, parent *node, base string, noReplace bool) (afero.File, error) {
	if old, ok := parent.entries[base]; ok {
		if old.entries != nil {
			return nil, pathErr("open", name, syscall.EISDIR)
		}
		if noReplace {
			return nil, pathErr("open", name, fs.ErrExist)
		}
	}
	h := &hidden{parent: parent, moves: t.moves}
	h.handle.name, h.handle.read, h.handle.write, h.handle.fs = name, true, true, t
	h.handle.node, h.handle.hidden = &h.node, h
	h.node.init(base, false, 0o666, time.Time{}) // timed at Publish
	return &h.handle, nil
}

// hidden is a file from CreateHidden: its handle and its node in one
// allocation, which stays the file's allocation once it is published (the
// handle's pointers are cleared then, so the garbage collector has fewer to
// follow for every file kept).
type hidden struct {
	handle handle
	node   node
	parent *node  // the directory it will be published in; nil once published
	moves  uint64 // the tree's moves at CreateHidden
}

// Publish links a file from CreateHidden into its directory under the last
// element of name, in O(depth). See aferofs.Publisher.
func (t *tree) Publish(f afero.File, name string, noReplace bool) error {
	fh, ok := f.(*handle)
	if !ok || fh.fs != t || fh.hidden == nil || fh.hidden.parent == nil {
		return pathErr("publish", name, fmt.Errorf("%w: not a hidden file of this file system", fs.ErrInvalid))
	}
	h := fh.hidden
	t.mu.Lock()
	defer t.mu.Unlock()
	parent, base := h.parent, h.node.name
	if t.moves != h.moves || name != fh.name {
		// Something may have moved: walk again, and publish only where the
		// file was meant to go.
		var err error
		parent, base, err = t.parentLocked(clean(name))
		if err != nil || parent != h.parent {
			return pathErr("publish", name, errMoved)
		}
	}
	if old, ok := parent.entries[base]; ok {
		if old.entries != nil {
			return pathErr("publish", name, syscall.EISDIR)
		}
		if noReplace {
			return pathErr("publish", name, fs.ErrExist)
		}
	}
	// Until parent.add no one else reaches the node (and the handle is
	// closed): no need for its lock.
	n := &h.node
	n.name = base
	n.modTime = time.Now()
	parent.add(base, n)
	h.parent = nil
	// The handle is closed (Publish takes closed files) and done with: it
	// keeps no pointers, and any further use fails as on a closed file.
	fh.closed, fh.fs, fh.node, fh.hidden, fh.dir, fh.name = true, nil, nil, nil, nil, ""
	return nil
}

// empty reports whether the root has no entries.
func (t *tree) empty() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.root.entries) == 0
}

// readdir returns the status of the entries of the directory n, sorted by name,
// as one snapshot.
func (t *tree) readdir(n *node) []*info {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]*info, 0, len(n.entries))
	for _, c := range n.entries {
		out = append(out, c.info())
	}
	return out
}

package blobfs

import (
	"fmt"
	"io/fs"
	"strings"
	"time"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// version identifies the version of an object a response came from. An input
// stream pins the version of its first response and refuses bytes of any
// other (vfs.ErrChanged), so that it never returns a mix of two versions.
type version struct {
	// id is the store's version of the object (ConditionalReader: an ETag or
	// a generation; without it, a HEAD's ETag), "" when the response did not
	// tell it.
	id   string
	mod  time.Time // zero when the response did not tell it
	size int64
}

// readVersion returns the version a GET answered with: its id when the Store
// can tell it (ConditionalReader), its size and modification time.
func (f *FileSystem) readVersion(r *blob.Reader) version {
	v := version{mod: r.ModTime(), size: r.Size()}
	if f.cond != nil {
		v.id = f.cond.ReadVersion(r)
	}
	return v
}

// headVersion returns the version a HEAD answered with.
func (f *FileSystem) headVersion(a *blob.Attributes) version {
	v := version{id: a.ETag, mod: a.ModTime, size: a.Size}
	if f.cond != nil {
		v.id = f.cond.HeadVersion(a)
	}
	return v
}

// same reports whether v and w are the same version of an object: their ids
// when both tell one, else their sizes and modification times (to the second
// when either time is whole seconds, as HTTP's Last-Modified is, else to the
// nanosecond; a missing time matches any). Without ids, two writes of the
// same size within the store's time resolution look the same:
// ConditionalReader closes that gap.
func (v version) same(w version) bool {
	if v.id != "" && w.id != "" {
		return v.id == w.id
	}
	if v.size != w.size {
		return false
	}
	if v.mod.IsZero() || w.mod.IsZero() {
		return true
	}
	if v.mod.Nanosecond() == 0 || w.mod.Nanosecond() == 0 {
		return modTime(v.mod).Equal(modTime(w.mod))
	}
	return v.mod.Equal(w.mod)
}

// String describes v for an error message.
func (v version) String() string {
	var parts []string
	if v.id != "" {
		parts = append(parts, "version "+v.id)
	}
	parts = append(parts, fmt.Sprintf("%d bytes", v.size))
	if !v.mod.IsZero() {
		parts = append(parts, "modified "+v.mod.UTC().Format(time.RFC3339Nano))
	}
	return strings.Join(parts, ", ")
}

// errChanged returns the error of a stream that pinned version pin and met
// another version of the object: a *fs.PathError wrapping vfs.ErrChanged
// (and fs.ErrNotExist when the object is gone), saying what changed.
func errChanged(op string, p vfs.Path, pin version, what string) error {
	return vfs.NewPathError(op, p, fmt.Errorf("%w: this stream began reading the version (%s), and %s; no byte of the new version was returned (reopen the file to read it)",
		vfs.ErrChanged, pin, what))
}

// errDeleted is errChanged for an object deleted since the stream pinned pin.
func errDeleted(op string, p vfs.Path, pin version) error {
	return vfs.NewPathError(op, p, fmt.Errorf("%w: %w: this stream began reading the version (%s), and the object has been deleted since",
		vfs.ErrChanged, fs.ErrNotExist, pin))
}

package blobfs

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/vfskit/vfskit/vfs"
)

var _ vfs.StreamStater = (*inputStream)(nil)

// Stat returns the size and modification time of the version of the object
// the stream reads, from the response that version came from: no request
// once a Read, ReadAt or end-relative Seek has been answered (or with
// Options.Strict, whose Open HEADs), else one HEAD, which fixes the version
// the stream reads as a first GET would. The time is in whole seconds, as
// Stat's. A response without a modification time fails with
// errors.ErrUnsupported (vfs.StatStream then asks Stat).
func (r *inputStream) Stat() (vfs.FileStatus, error) {
	if r.closed {
		return vfs.FileStatus{}, vfs.NewPathError("stat", r.path, fs.ErrClosed)
	}
	if r.pin == nil {
		attrs, err := r.f.attributes(r.ctx, r.key)
		if err != nil {
			return vfs.FileStatus{}, r.f.readError(r.ctx, "stat", r.path, r.key, err)
		}
		r.pinHead(attrs)
	}
	if r.pin.mod.IsZero() {
		return vfs.FileStatus{}, vfs.NewPathError("stat", r.path, fmt.Errorf("the store's response did not tell the modification time: %w", errors.ErrUnsupported))
	}
	return vfs.FileStatus{Path: r.path, Size: r.pin.size, ModTime: modTime(r.pin.mod)}, nil
}

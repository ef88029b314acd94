package vfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"
)

// Version identifies one version of a file: what a conditional delete
// (DeleteVersion) proves is still there before it removes the file.
type Version struct {
	// Size and ModTime are the file's size and modification time.
	Size    int64
	ModTime time.Time
	// ID is the store's own identity of the version where it has one: an
	// ETag (S3, Azure), a generation (GCS), the device and inode (file://);
	// "" when unknown. It is opaque and only comparable within one file
	// system.
	ID string
}

// VersionOf returns the version a status describes: its size and
// modification time, and its FileID (device and inode, on disk) as the ID,
// so that the version of a listed file is never matched by another file
// found at its path later, however alike.
func VersionOf(st FileStatus) Version {
	return Version{Size: st.Size, ModTime: st.ModTime, ID: st.FileID.String()}
}

// Matches reports whether v and w describe the same version: the same size,
// the same ID when both have one, and the same modification time when both
// tell one — to the second when either time is in whole seconds (as HTTP's
// Last-Modified is), else to the nanosecond. Without IDs the times must be
// known: a version that tells neither an ID nor a time cannot be proven.
func (v Version) Matches(w Version) bool {
	if v.Size != w.Size {
		return false
	}
	ids := v.ID != "" && w.ID != ""
	if ids && v.ID != w.ID {
		return false
	}
	if v.ModTime.IsZero() || w.ModTime.IsZero() {
		return ids
	}
	if v.ModTime.Nanosecond() == 0 || w.ModTime.Nanosecond() == 0 {
		return v.ModTime.Truncate(time.Second).Equal(w.ModTime.Truncate(time.Second))
	}
	return v.ModTime.Equal(w.ModTime)
}

// String describes v for messages: "12 bytes, modified 2026-…, version …".
func (v Version) String() string {
	parts := []string{fmt.Sprintf("%d bytes", v.Size)}
	if !v.ModTime.IsZero() {
		parts = append(parts, "modified "+v.ModTime.UTC().Format(time.RFC3339Nano))
	}
	if v.ID != "" {
		parts = append(parts, "version "+v.ID)
	}
	return strings.Join(parts, ", ")
}

// VersionStater is implemented by input streams that can tell the exact
// version they read, with the store's ID of it (StreamStater tells only size
// and modification time). StreamVersion uses it when present.
type VersionStater interface {
	// Version returns the version whose bytes the stream returns. Like
	// StreamStater.Stat it sends no request once a Read has returned a
	// byte, and may send one before (which then fixes the version read).
	Version() (Version, error)
}

// VersionPinner is implemented by input streams that return bytes of one
// version of a file only, the version of their first response, and fail a
// read with ErrChanged rather than return a byte of another: an object
// store's stream, whose objects are never changed in place and whose later
// requests are conditional on that version. For such a stream the version
// StreamVersion tells after a read is the one every byte came from, so
// MoveTree asks for it only then. (A file on disk can be written in place
// while it is read: there MoveTree compares the version before and after.)
type VersionPinner interface {
	// PinsVersion reports whether the stream reads one version only.
	PinsVersion() bool
}

// PinsVersion reports whether in reads one version of its file only
// (VersionPinner).
func PinsVersion(in InputStream) bool {
	p, ok := in.(VersionPinner)
	return ok && p.PinsVersion()
}

// StreamVersion returns the version of the file at p that in, opened from
// fsys, reads: the stream's own (VersionStater), else its size and
// modification time (StatStream). Call it after reading, so that it names the
// version whose bytes were read.
func StreamVersion(ctx context.Context, fsys FileSystem, p Path, in InputStream) (Version, error) {
	if vs, ok := in.(VersionStater); ok {
		v, err := vs.Version()
		if err == nil || !errors.Is(err, errors.ErrUnsupported) {
			return v, err
		}
	}
	st, err := StatStream(ctx, fsys, p, in)
	if err != nil {
		return Version{}, err
	}
	return VersionOf(st), nil
}

// WrittenVersioner is implemented by output streams that can tell the
// version of the file their Close published, from what the store answered
// to the write that published it (an S3 or Azure ETag, a GCS generation) or
// from the file as it was published (on disk its device, inode, size and
// modification time, read from the open file before it was renamed into
// place; in memory the time it was published at, under the file system's
// lock): no request, and no lookup of the path, where a later write by
// someone else would be found instead. WrittenVersion uses it.
type WrittenVersioner interface {
	// KeepVersion asks the stream to keep the version its Close will
	// publish, for Version. Call it before Close. (A stream may keep it
	// anyway; one that does only when asked spares the others the cost.)
	KeepVersion()
	// Version returns the version that Close published. It fails with an
	// error wrapping errors.ErrUnsupported when the stream cannot tell
	// (KeepVersion was not called, or the store's answer did not tell it),
	// and with one wrapping fs.ErrInvalid when Close has not returned nil.
	Version() (Version, error)
}

// WrittenVersion returns the version of the file at p that out, created on
// fsys at p, published when its Close returned nil: the stream's own account
// (WrittenVersioner, asked with KeepVersion before Close) where it gives one;
// else (and when out is nil: a file written otherwise, by a server-side
// copy for one) it opens p and reads its version (StreamVersion), which
// costs a request on an object store and, when p was written again since,
// names that later write.
func WrittenVersion(ctx context.Context, fsys FileSystem, p Path, out OutputStream) (Version, error) {
	if wv, ok := out.(WrittenVersioner); ok {
		v, err := wv.Version()
		if err == nil || !errors.Is(err, errors.ErrUnsupported) {
			return v, err
		}
	}
	in, err := fsys.Open(ctx, p)
	if err != nil {
		return Version{}, err
	}
	defer in.Close()
	return StreamVersion(ctx, fsys, p, in)
}

// DeleteVersionFS is implemented by file systems that delete a file only if
// it is still at a given version, atomically or as close to it as the store
// allows (S3 If-Match, GCS ifGenerationMatch, Azure If-Match, a rename-verify-
// unlink on disk, a check under a lock in memory). DeleteVersion uses it.
type DeleteVersionFS interface {
	FileSystem
	// DeleteVersion deletes the file at p if it is at version v (see
	// Version.Matches; an ID, where v has one, is what the store checks).
	// A file at another version, or a directory or link at p, is left in
	// place and fails with an error wrapping ErrChanged; a missing file
	// fails with an error wrapping ErrChanged and fs.ErrNotExist. An error
	// wrapping errors.ErrUnsupported means it could not check (for example v
	// has no ID the store can use) and did nothing; DeleteVersion then falls
	// back.
	DeleteVersion(ctx context.Context, p Path, v Version) error
}

// DeleteVersion deletes the file at p only if it is still the version v — the
// one the caller copied or judged unneeded — and otherwise leaves it and fails
// with an *fs.PathError wrapping ErrChanged that says what is there now (with
// fs.ErrNotExist too when nothing is). It never deletes a directory.
//
// It uses fsys's DeleteVersionFS where present. Elsewhere it falls back to a
// Stat immediately before a non-recursive Delete and compares v with what Stat
// tells (Version.Matches): a write that lands between the two is not seen,
// so the fallback narrows the window to one round trip but cannot close it.
func DeleteVersion(ctx context.Context, fsys FileSystem, p Path, v Version) error {
	if dv, ok := fsys.(DeleteVersionFS); ok {
		err := dv.DeleteVersion(ctx, p, v)
		if err == nil || !errors.Is(err, errors.ErrUnsupported) {
			return err
		}
	}
	st, err := fsys.Stat(ctx, p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ErrVersionGone("delete", p, v)
		}
		return err
	}
	if st.IsDir {
		return NewPathError("delete", p, fmt.Errorf("%w: a directory is there now, not the file (%s) that was read", ErrChanged, v))
	}
	if now := VersionOf(st); !v.Matches(now) {
		return ErrVersionMismatch("delete", p, v, now)
	}
	return fsys.Delete(ctx, p, false)
}

// ErrVersionMismatch returns the error of a conditional operation that found
// the file at p at version now instead of want: an *fs.PathError wrapping
// ErrChanged. Backends implementing DeleteVersionFS use it.
func ErrVersionMismatch(op string, p Path, want, now Version) error {
	return NewPathError(op, p, fmt.Errorf("%w: it is not the version that was read (%s) but %s; left in place", ErrChanged, want, now))
}

// ErrVersionGone returns the error of a conditional operation that found no
// file at p where version want was read: an *fs.PathError wrapping ErrChanged
// and fs.ErrNotExist.
func ErrVersionGone(op string, p Path, want Version) error {
	return NewPathError(op, p, fmt.Errorf("%w: %w: the version that was read (%s) is gone", ErrChanged, fs.ErrNotExist, want))
}

package blobfs

import (
	"context"
	"errors"
	"fmt"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// ConditionalDeleter is the optional part of a Store that deletes an object
// only if it is at a version (S3 DeleteObject with If-Match, GCS
// ifGenerationMatch, Azure If-Match). blobfs.FileSystem.DeleteVersion uses it.
type ConditionalDeleter interface {
	// DeleteVersion deletes key from bucket (whose name, the file system's
	// authority, is name) only if the object is at version v, in
	// ConditionalReader.ReadVersion's form. An object at another version
	// must fail with gcerrors.FailedPrecondition, or (a store that deletes
	// a named version) with gcerrors.NotFound, as gcerrors.Code or the
	// Store's ErrorCoder tells; a missing object with either. An error wrapping
	// errors.ErrUnsupported means the store cannot send the condition and
	// nothing was deleted: blobfs then checks with a HEAD and deletes.
	DeleteVersion(ctx context.Context, bucket *blob.Bucket, name, key, v string) error
}

// EnforcingDeleter is the optional part of a ConditionalDeleter that tells
// whether the store enforces DeleteVersion's condition, refusing to delete
// another version, rather than ignoring it (some S3-compatible servers delete
// whatever is there). Where it answers true, FileSystem.DeleteVersion of a
// version with an ID sends the conditional delete alone: the store's own
// check proves the object is that version, and no HEAD precedes it.
type EnforcingDeleter interface {
	// EnforcesDeleteVersion reports whether the store enforces the
	// condition of DeleteVersion for key (of the bucket named name). It may
	// send a request the first time (a probe beside key) and should
	// remember the answer; false when it cannot tell.
	EnforcesDeleteVersion(ctx context.Context, bucket *blob.Bucket, name, key string) bool
}

var (
	_ vfs.VersionStater   = (*inputStream)(nil)
	_ vfs.VersionPinner   = (*inputStream)(nil)
	_ vfs.DeleteVersionFS = (*FileSystem)(nil)
)

// Version returns the version of the object the stream reads (see Stat): its
// size, modification time and, where the Store tells it
// (ConditionalReader), its ETag or generation as the ID.
func (r *inputStream) Version() (vfs.Version, error) {
	_, err := r.Stat()
	if err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return vfs.Version{}, err
	}
	// The response's own time, not Stat's whole seconds: a store that
	// tells nanoseconds (and no ID) then tells two writes in one second
	// apart.
	v := vfs.Version{Size: r.pin.size, ModTime: r.pin.mod, ID: r.pin.id}
	if v.ID == "" && v.ModTime.IsZero() {
		return vfs.Version{}, err
	}
	return v, nil
}

// PinsVersion reports true: the stream returns bytes of the version of its
// first response only, and fails with vfs.ErrChanged at any other (see Open).
func (r *inputStream) PinsVersion() bool { return true }

// DeleteVersion deletes the object at p only if it is still at version v (see
// vfs.DeleteVersionFS). When v has an ID and the Store enforces conditional
// deletes (EnforcingDeleter: GCS's generation, Azure's If-Match, an S3 server
// that refuses a wrong If-Match), it is one request: the store deletes the
// object only if it is at that version. Otherwise it first HEADs the object
// and compares (vfs.Version.Matches), so a store that ignores a condition
// still never deletes a version known to differ; then, with a
// ConditionalDeleter Store, the store checks the version again as it deletes:
// v's ID, or when v has none (a version from a listing), the ID of the
// version the HEAD matched. That closes the window between the two requests;
// without a ConditionalDeleter, a write between the HEAD and the delete is not
// seen. A mismatch leaves the object and fails with vfs.ErrChanged; no object
// at p fails with vfs.ErrChanged and fs.ErrNotExist.
func (f *FileSystem) DeleteVersion(ctx context.Context, p vfs.Path, v vfs.Version) error {
	q, k, err := f.qualifiedKey("delete", p)
	if err != nil {
		return err
	}
	if k == "" {
		return vfs.NewPathError("delete", q, fmt.Errorf("%w: the bucket's root is not a file", vfs.ErrChanged))
	}
	return f.deleteKeyVersion(ctx, q, k, v)
}

// deleteKeyVersion is DeleteVersion of the key k, which q names in errors
// (a key no path names, such as "d/./x", is deleted by its key, never by
// what q resolves to).
func (f *FileSystem) deleteKeyVersion(ctx context.Context, q vfs.Path, k string, v vfs.Version) error {
	if ed, ok := f.opts.Store.(EnforcingDeleter); ok && v.ID != "" && ed.EnforcesDeleteVersion(ctx, f.b, f.root.Authority(), k) {
		if sent, err := f.deleteIf(ctx, q, k, v, v.ID); sent {
			return err
		}
	}
	attrs, err := f.attributes(ctx, k)
	switch {
	case f.isNotFound(err):
		return vfs.ErrVersionGone("delete", q, v)
	case err != nil:
		return f.pathError("delete", q, err)
	}
	now := f.headVersion(attrs).public()
	if !v.Matches(now) {
		return vfs.ErrVersionMismatch("delete", q, v, now)
	}
	// A v without an ID (a listing's size and time) is pinned to the ID of
	// the version the HEAD just matched, so the delete is conditional too.
	id := v.ID
	if id == "" {
		id = now.ID
	}
	if sent, err := f.deleteIf(ctx, q, k, v, id); sent {
		return err
	}
	return f.pathError("delete", q, f.deleteKeys(ctx, []string{k}))
}

// deleteIf deletes the object k only at the store's version id, in one
// request, through a ConditionalDeleter Store; sent is false when it could
// not send the condition (no ConditionalDeleter, no id, or the store said
// errors.ErrUnsupported) and nothing was deleted. A refusal fails as
// DeleteVersion does, naming v.
func (f *FileSystem) deleteIf(ctx context.Context, q vfs.Path, k string, v vfs.Version, id string) (sent bool, err error) {
	cd, ok := f.opts.Store.(ConditionalDeleter)
	if !ok || id == "" {
		return false, nil
	}
	err = cd.DeleteVersion(ctx, f.b, f.root.Authority(), k, id)
	switch {
	case err == nil:
		return true, nil
	case f.isNotFound(err), f.isPreconditionFailed(err):
		return true, f.versionMismatch(ctx, q, k, v)
	case errors.Is(err, errors.ErrUnsupported):
		return false, nil
	}
	return true, f.pathError("delete", q, err)
}

// deleteAt deletes the object k (at q) only if it is still at version v,
// which a HEAD of this file system told, as DeleteVersion does: one
// conditional delete on v's id where the Store enforces it, else a HEAD, a
// comparison and a delete (conditional where the Store can send it, for a
// store that ignores the condition). A mismatch fails with vfs.ErrChanged.
func (f *FileSystem) deleteAt(ctx context.Context, q vfs.Path, k string, v version) error {
	return f.deleteKeyVersion(ctx, q, k, v.public())
}

// versionMismatch is the error of a conditional delete the store refused: it
// HEADs the object to say what is there now.
func (f *FileSystem) versionMismatch(ctx context.Context, q vfs.Path, k string, v vfs.Version) error {
	attrs, err := f.attributes(ctx, k)
	switch {
	case f.isNotFound(err):
		return vfs.ErrVersionGone("delete", q, v)
	case err != nil:
		return vfs.NewPathError("delete", q, fmt.Errorf("%w: the store refused to delete it: it is not the version that was read (%s); left in place", vfs.ErrChanged, v))
	}
	return vfs.ErrVersionMismatch("delete", q, v, f.headVersion(attrs).public())
}

// public is v as a vfs.Version.
func (v version) public() vfs.Version {
	return vfs.Version{Size: v.size, ModTime: v.mod, ID: v.id}
}

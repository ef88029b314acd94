package blobfs

import (
	"context"
	"strings"
	"time"

	"github.com/vfskit/vfskit/vfs"
)

// TempStore is the optional part of a Store whose writers leave something
// behind on the store when they are killed mid-write (the s3 backend's
// incomplete multipart uploads, each named by a marker object). FileSystem's
// CleanTemp (vfs.CleanTemp, the CLI's clean-temp) calls it.
type TempStore interface {
	// CleanTemp finds what killed writers of this store left under prefix
	// (every key for "") whose last activity is before cutoff, removes it
	// unless dryRun, and returns the keys of the objects it names (each
	// marker's). It removes only what vfskit's own writers left, recognised
	// by their marker, never a younger one, and never the upload of a
	// recoverable stream (vfs.RecoverableWriter), which a token may still
	// resume.
	CleanTemp(ctx context.Context, prefix string, cutoff time.Time, dryRun bool) ([]string, error)
}

// TempNamer is the optional part of a Store whose writers keep objects of
// their own next to the files they write while they run (the s3 backend's
// upload markers), under names that carry a check so that no user's name is
// taken for one by accident. List (and so vfs.Walk, CopyTree and MoveTree)
// leaves those objects out; every other name is listed.
type TempNamer interface {
	// IsTempName reports whether name, the last segment of a listed key,
	// is the name of one of the store's own temporary objects.
	IsTempName(name string) bool
}

var _ vfs.TempCleaner = (*FileSystem)(nil)

// CleanTemp removes what writers killed mid-write left in dir and below it
// when its last activity is before cutoff (see TempStore), and returns the
// paths of the markers it removed (or would remove, with dryRun). A Store
// without TempStore leaves nothing (one listing request checks that the
// bucket exists, vfs.ErrBucketNotExist): an object is published whole at Close or
// not at all, and a store's incomplete uploads (GCS resumable sessions, Azure
// uncommitted blocks) expire on the service's own (a week).
func (f *FileSystem) CleanTemp(ctx context.Context, dir vfs.Path, cutoff time.Time, dryRun bool) ([]vfs.Path, error) {
	q, k, err := f.qualifiedKey("clean temp", dir)
	if err != nil {
		return nil, err
	}
	ts, ok := f.opts.Store.(TempStore)
	if !ok {
		if err := f.bucketMissing(ctx); err != nil {
			return nil, f.pathError("clean temp", q, err)
		}
		return nil, nil
	}
	keys, err := ts.CleanTemp(ctx, dirPrefix(k), cutoff, dryRun)
	paths := make([]vfs.Path, 0, len(keys))
	for _, key := range keys {
		paths = append(paths, f.root.Join(strings.Split(key, "/")...))
	}
	if err != nil {
		return paths, f.pathError("clean temp", q, err)
	}
	return paths, nil
}

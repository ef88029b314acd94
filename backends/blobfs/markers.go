package blobfs

import (
	"context"
	"strings"

	"gocloud.dev/blob"
)

// Directory markers
//
// Object stores have no directories, so clients leave objects that say one
// exists. blobfs reads every convention in use as a directory:
//
//   - "d/": an object whose key ends in "/" (the AWS console, rclone, gcsfs,
//     adlfs, Hadoop's S3A; any Content-Type, application/x-directory
//     included). It names the directory d and is left out of listings.
//   - "d_$folder$" (HadoopFolderSuffix): the zero-byte object Hadoop's s3n
//     and EMR's file system write; it lists as the directory d.
//   - an ADLS folder blob: the object "d" whose metadata holds
//     hdi_isfolder=true (FolderMetadata), which ADLS Gen2, the Azure portal
//     and Hadoop's ABFS write; it stats and lists as the directory d (in
//     listings when the Store is a FolderLister, as the azblob backend's is).
//
// A recursive Delete removes the markers of the directory and of everything
// under it; a directory rename moves them.

// HadoopFolderSuffix is the suffix of Hadoop's directory markers: the object
// "d_$folder$" says that d is a directory.
const HadoopFolderSuffix = "_$folder$"

// FolderMetadata is the metadata key of ADLS's folder blobs: a blob whose
// metadata holds it with the value "true" is a directory.
const FolderMetadata = "hdi_isfolder"

// FolderLister is the optional part of a Store whose listings tell the
// folder objects of its convention (ADLS's folder blobs), which blobfs then
// lists as directories.
type FolderLister interface {
	// ListedFolder reports whether the listed object o is a folder object.
	ListedFolder(o *blob.ListObject) bool
}

// isFolder reports whether an object's attributes make it a folder object
// (FolderMetadata is "true").
func isFolder(a *blob.Attributes) bool {
	return a != nil && strings.EqualFold(a.Metadata[FolderMetadata], "true")
}

// hadoopFolder returns the directory name of a listed Hadoop marker name
// ("d" for "d_$folder$"), and whether name is one.
func hadoopFolder(name string) (string, bool) {
	d, ok := strings.CutSuffix(name, HadoopFolderSuffix)
	return d, ok && d != ""
}

// listedFolder reports whether the listed object o is a folder object of
// the Store's convention.
func (f *FileSystem) listedFolder(o *blob.ListObject) bool {
	fl, ok := f.opts.Store.(FolderLister)
	return ok && fl.ListedFolder(o)
}

// hasHadoopMarker reports whether the object "k_$folder$" exists: one HEAD.
func (f *FileSystem) hasHadoopMarker(ctx context.Context, k string) (bool, error) {
	mk := k + HadoopFolderSuffix
	if max := f.opts.MaxKeyLength; max > 0 && len(mk) > max {
		return false, nil
	}
	_, err := f.attributes(ctx, mk)
	switch {
	case err == nil:
		return true, nil
	case f.isNotFound(err):
		return false, nil
	}
	return false, err
}

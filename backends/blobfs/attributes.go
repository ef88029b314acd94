package blobfs

import (
	"context"
	"maps"
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

// ownMetadata are the metadata keys of blobfs's own bookkeeping, which
// StatAttributes leaves out and copies do not carry over.
var ownMetadata = []string{WriteIDMetadata, LegacyWriteIDMetadata, RecoverableMetadata}

// StatAttributes HEADs the object at p (one request) and returns its
// Content-Type, Content-Encoding, Cache-Control and user metadata (keys in
// lower case, blobfs's own keys left out). A missing object, or a
// directory, fails with fs.ErrNotExist.
func (f *FileSystem) StatAttributes(ctx context.Context, p vfs.Path) (vfs.Attributes, error) {
	q, k, err := f.qualifiedKey("stat", p)
	if err != nil {
		return vfs.Attributes{}, err
	}
	if k == "" {
		return vfs.Attributes{}, vfs.NewPathError("stat", q, vfs.ErrIsDir)
	}
	attrs, err := f.attributes(ctx, k)
	if err != nil {
		return vfs.Attributes{}, f.pathError("stat", q, err)
	}
	a := vfs.Attributes{ContentType: attrs.ContentType, ContentEncoding: attrs.ContentEncoding, CacheControl: attrs.CacheControl}
	for key, v := range attrs.Metadata {
		key = strings.ToLower(key)
		if isOwnMetadata(key) {
			continue
		}
		if a.Metadata == nil {
			a.Metadata = map[string]string{}
		}
		a.Metadata[key] = v
	}
	return a, nil
}

// isOwnMetadata reports whether key is one of blobfs's own metadata keys.
func isOwnMetadata(key string) bool {
	for _, k := range ownMetadata {
		if strings.EqualFold(key, k) {
			return true
		}
	}
	return false
}

// uploadOptions returns the options of an upload of the object k by the
// write id with the attributes a: a's metadata with the write id, and a's
// Content-Type or else the one of k's extension.
func uploadOptions(k, id string, a vfs.Attributes) UploadOptions {
	md := make(map[string]string, len(a.Metadata)+1)
	maps.Copy(md, a.Metadata)
	for key := range md {
		if isOwnMetadata(key) {
			delete(md, key)
		}
	}
	md[WriteIDMetadata] = id
	ct := a.ContentType
	if ct == "" {
		ct = contentTypeOf(k)
	}
	return UploadOptions{ContentType: ct, ContentEncoding: a.ContentEncoding, CacheControl: a.CacheControl, Metadata: md}
}

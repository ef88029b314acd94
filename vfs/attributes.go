package vfs

import (
	"context"
	"errors"
)

// Attributes are what an object store keeps beside an object's bytes for
// every client to read: HTTP headers and user metadata. FileStatus leaves
// them out (a listing does not carry them); AttributesFS reads and writes
// them.
type Attributes struct {
	// ContentType is the object's Content-Type ("" on Create: the type of
	// the name's extension, as Go's mime package knows it, else
	// application/octet-stream).
	ContentType string `json:"contentType,omitempty"`
	// ContentEncoding is the object's Content-Encoding, such as gzip.
	ContentEncoding string `json:"contentEncoding,omitempty"`
	// CacheControl is the object's Cache-Control.
	CacheControl string `json:"cacheControl,omitempty"`
	// Metadata is the object's user metadata (x-amz-meta-*, x-goog-meta-*,
	// x-ms-meta-*), keys in lower case, without the store's own keys.
	Metadata map[string]string `json:"metadata,omitempty"`
}

// AttributesFS is the optional interface of a file system whose files carry
// Attributes (the object stores).
type AttributesFS interface {
	FileSystem
	// StatAttributes returns the attributes of the file at p (one request
	// on an object store). A directory or a missing path fails as Open's
	// first read does.
	StatAttributes(ctx context.Context, p Path) (Attributes, error)
	// CreateWithAttributes is Create of a file that carries a.
	CreateWithAttributes(ctx context.Context, p Path, mode WriteMode, a Attributes) (OutputStream, error)
}

// ErrNoAttributes is the error of StatAttributes on a file system that keeps
// no Attributes.
var ErrNoAttributes = errors.New("the file system keeps no content type or metadata")

// StatAttributes returns the attributes of the file at p, through fsys's
// AttributesFS; fsys that keeps none fails with an error wrapping
// ErrNoAttributes and errors.ErrUnsupported.
func StatAttributes(ctx context.Context, fsys FileSystem, p Path) (Attributes, error) {
	if a, ok := fsys.(AttributesFS); ok {
		return a.StatAttributes(ctx, p)
	}
	return Attributes{}, NewPathError("stat", p, errors.Join(ErrNoAttributes, errors.ErrUnsupported))
}

// CreateWithAttributes creates the file p carrying the attributes a, through
// fsys's AttributesFS; on a file system that keeps none it is Create, and
// a is dropped.
func CreateWithAttributes(ctx context.Context, fsys FileSystem, p Path, mode WriteMode, a Attributes) (OutputStream, error) {
	if af, ok := fsys.(AttributesFS); ok {
		return af.CreateWithAttributes(ctx, p, mode, a)
	}
	return fsys.Create(ctx, p, mode)
}

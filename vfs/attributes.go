package vfs

// Attributes are what an object store keeps beside an object's bytes for
// every client to read: HTTP headers and user metadata. FileStatus leaves
// them out (a listing does not carry them); the object-store backends
// (blobfs.FileSystem) read and write them.
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

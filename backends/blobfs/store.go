package blobfs

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"sync"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// Store is the store-specific behaviour a scheme's package gives blobfs through
// Options.Store, so that blobfs itself links no cloud SDK. CheckKey is
// required; every other part is optional: a Store may also implement
// ExactKeys, BatchDeleter, ConditionalCopier, ConditionalReader, Uploader,
// WriteVersioner, Lister and ErrorCoder, and blobfs uses what it implements (the s3 backend
// implements all of them). Without a Store keys go
// through the gocloud driver, deletes are one request per key and conditional
// copies stream through this process.
type Store interface {
	// CheckKey returns an error (its message names the key and why) when the
	// store cannot hold or name key exactly; write is true for a key about to be
	// written. It runs before any request; blobfs wraps its error in
	// fs.ErrInvalid.
	CheckKey(key string, write bool) error
}

// ExactKeys is the optional part of a Store that sends every key exactly as the
// path spells it, bypassing a driver's key escaping, and names listed objects by
// the keys the service returned. Each Before* method returns the driver hook
// (gocloud's As escape hatch) that sets the exact key on the request.
type ExactKeys interface {
	// BeforeList sets the listing prefix ("" for the whole bucket) exactly.
	BeforeList(prefix string) func(as func(any) bool) error
	// ListedKey returns the exact key of a listed object or prefix.
	ListedKey(o *blob.ListObject) (string, error)
	// Attributes HEADs key exactly: size, modification time, ETag and metadata.
	// A missing key fails with an error whose code (gcerrors.Code, else
	// ErrorCoder.ErrorCode) is gcerrors.NotFound.
	Attributes(ctx context.Context, key string) (*blob.Attributes, error)
	// BeforeRead sets the key of a GET.
	BeforeRead(key string) func(as func(any) bool) error
	// BeforeWrite sets the key of an upload.
	BeforeWrite(key string) func(as func(any) bool) error
	// BeforeCopy sets the destination and source keys of a server-side copy.
	BeforeCopy(dst, src string) func(as func(any) bool) error
}

// ExactConditionalWriter is the optional part of an ExactKeys Store whose
// write hook replaces the driver's request with one of its own (GCS: the
// object handle of the exact key), which must then carry the write's
// condition itself. blobfs uses BeforeWriteIf instead of BeforeWrite.
type ExactConditionalWriter interface {
	// BeforeWriteIf is BeforeWrite of a write that is conditional on the
	// key's absence when ifNotExist (blob.WriterOptions.IfNotExist).
	BeforeWriteIf(key string, ifNotExist bool) func(as func(any) bool) error
}

// BatchDeleter is the optional part of a Store that deletes many keys in one
// request (S3 DeleteObjects).
type BatchDeleter interface {
	// DeleteBatch deletes at most MaxDeleteBatch keys; missing keys are fine.
	DeleteBatch(ctx context.Context, keys []string) error
}

// ConditionalCopier is the optional part of a Store whose server-side copies
// can be conditional on the destination's absence (S3 CopyObject with
// If-None-Match: *).
type ConditionalCopier interface {
	// BeforeCopyNew returns the copy hook that makes the copy conditional and
	// replaces the new object's metadata with {WriteIDMetadata: id} and its
	// Content-Type with contentType. blobfs runs it after the exact keys' and
	// Options.BeforeCopy's hooks. A copy whose destination exists must fail
	// with gcerrors.FailedPrecondition; when the store refuses the condition
	// itself (gcerrors.Unimplemented, see ErrorCoder) the copy is repeated
	// unconditionally.
	BeforeCopyNew(id, contentType string) func(as func(any) bool) error
}

// SourceConditionalCopier is the optional part of a ConditionalCopier Store
// whose server-side copies can also be conditional on the source's version
// (S3 CopyObject with x-amz-copy-source-if-match, Azure Copy Blob with
// x-ms-source-if-match), so that Rename copies exactly the version it then
// deletes.
type SourceConditionalCopier interface {
	// BeforeCopyFrom returns the copy hook that makes the copy conditional on
	// the source being at version v (ConditionalReader.HeadVersion's form).
	// blobfs runs it after BeforeCopyNew's hook. A copy of a source at
	// another version must fail with gcerrors.FailedPrecondition (or
	// gcerrors.NotFound), as gcerrors.Code or the Store's ErrorCoder tells.
	BeforeCopyFrom(v string) func(as func(any) bool) error
}

// Uploader is the optional part of a Store that writes objects itself
// instead of through the driver's blob.Writer (the s3 backend's does, to bound
// an upload's memory to its part buffers and send a small file as one PUT
// straight from its buffer). Create and the streamed copies use it when
// present.
type Uploader interface {
	// NewUpload returns the writer of the object key. It should send nothing
	// before bytes are written or Close is called. ctx governs the whole
	// upload: when it ends before Close, Close publishes nothing.
	NewUpload(ctx context.Context, key string, opts UploadOptions) (Upload, error)
}

// Lister is the optional part of a Store that lists keys itself, exactly,
// instead of through the driver (which, on S3, copies every listed object
// into closures, unescapes its key and decodes its ETag). When the Store is a
// Lister, its ExactKeys' BeforeList and ListedKey are not used.
type Lister interface {
	// ListPage lists at most n keys that start with prefix (all keys for ""),
	// in key order, from the page token (nil: the first page); with a
	// delimiter, keys with it after the prefix are rolled up into one
	// directory entry (IsDir, the key up to and including the delimiter). It
	// returns each key exactly as the store listed it, and the next page's
	// token, nil after the last page.
	ListPage(ctx context.Context, prefix, delimiter string, token []byte, n int) ([]*blob.ListObject, []byte, error)
}

// UploadOptions are what every object blobfs writes carries.
type UploadOptions struct {
	// ContentType is the object's Content-Type.
	ContentType string
	// ContentEncoding and CacheControl are the object's Content-Encoding
	// and Cache-Control ("": none).
	ContentEncoding, CacheControl string
	// Metadata is the object's user metadata (it holds WriteIDMetadata).
	Metadata map[string]string
	// IfNotExist makes the write conditional on the key's absence (S3's
	// If-None-Match: *): when the object exists, Close fails with an error
	// whose code (gcerrors.Code, else ErrorCoder.ErrorCode) is
	// gcerrors.FailedPrecondition.
	IfNotExist bool
	// PartSize and Concurrency are the file system's Options.PartSize and
	// Options.Concurrency; zero means the store's default.
	PartSize, Concurrency int
}

// Upload is an object being written. Write may send parts as they fill and
// report an earlier part's failure. Close publishes the object and returns
// nil, or returns why nothing was published; after the upload's context
// ended, Close publishes nothing and releases what the upload holds on the
// store (such as a multipart upload). blobfs calls Close exactly once.
type Upload interface {
	Write(p []byte) (int, error)
	Close() error
}

// VersionedUpload is the optional part of an Upload (of a Store's Uploader)
// that tells the version of the object its Close published.
type VersionedUpload interface {
	Upload
	// Version returns the version the store answered the request that
	// published the object with (PutObject's or CompleteMultipartUpload's
	// ETag on S3), in ConditionalReader.ReadVersion's form; "" when the
	// answer did not tell it. blobfs calls it after Close returned nil.
	Version() string
}

// WriteVersioner is the optional part of a Store whose driver's writer can
// tell the version of the object it published (the generation GCS created,
// the ETag Azure answered the commit with), so that a stream tells the
// version it wrote without a HEAD (vfs.WrittenVersioner).
type WriteVersioner interface {
	// WatchWrite prepares one write through the driver's writer: it returns
	// the context to give the writer, the writer hook to run after every
	// other (nil for none), and a function that returns the version the
	// store published, in ConditionalReader.ReadVersion's form, once the
	// writer's Close returned nil ("" when it cannot tell).
	WatchWrite(ctx context.Context) (context.Context, func(as func(any) bool) error, func() string)
}

// ConditionalReader is the optional part of a Store whose GETs can be
// conditional on an object's version: its ETag on S3 (GetObject with
// If-Match) and Azure, its generation on GCS (ifGenerationMatch). An input
// stream pins the version its first response came from and sends every later
// GET of the same stream conditional on it, so the store refuses to serve
// bytes of another version. Without it (memblob, fileblob, a raw bucket) a
// stream still compares each response's size and modification time with the
// first one's before returning a byte (see Open).
type ConditionalReader interface {
	// ReadVersion returns the version of the object a GET answered with, or
	// "" when the driver's reader does not tell it.
	ReadVersion(r *blob.Reader) string
	// HeadVersion returns the version a HEAD answered with (attributes from
	// the bucket or from ExactKeys.Attributes), in ReadVersion's form, or "".
	HeadVersion(a *blob.Attributes) string
	// BeforeReadVersion returns the GET hook that makes the GET conditional
	// on the object being at version v. blobfs runs it after the exact key's
	// hook. A GET of an object at another version must fail with
	// gcerrors.FailedPrecondition.
	BeforeReadVersion(v string) func(as func(any) bool) error
}

// ListVersioner is the optional part of a Store whose listings tell each
// object's version (GCS's generation). blobfs checks with it, in the listing
// a recoverable stream's commit makes anyway, that its pieces are the ones it
// wrote.
type ListVersioner interface {
	// ListVersion returns the version of a listed object, in
	// ConditionalReader.ReadVersion's form, or "" when the listing does not
	// tell it.
	ListVersion(o *blob.ListObject) string
}

// ErrorCoder is the optional part of a Store that classifies the errors of
// its requests, as a gocloud driver's ErrorCode does: those of its own
// requests (ExactKeys, BatchDeleter, Uploader, Lister) and those its driver
// leaves gcerrors.Unknown. blobfs knows no store's error codes or HTTP
// statuses: it asks gcerrors.Code first, and the ErrorCoder where that says
// gcerrors.Unknown, or gcerrors.NotFound (the ErrorCoder's
// gcerrors.PermissionDenied then wins: a refusal is never taken for a
// missing object). Without an ErrorCoder only gcerrors.Code counts.
type ErrorCoder interface {
	// ErrorCode returns the gocloud code that err means: gcerrors.NotFound
	// for a missing object, gcerrors.PermissionDenied for a refused one,
	// gcerrors.FailedPrecondition for a failed condition (a conditional
	// write onto an existing object, a conditional read of a replaced one),
	// gcerrors.Unimplemented for a condition or header the store does not
	// support (a conditional copy is then repeated unconditionally), and
	// gcerrors.Unknown when it cannot tell.
	ErrorCode(err error) gcerrors.ErrorCode
	// RangePastEnd reports whether err is the store's refusal of a read
	// whose range starts at or past the end of the object, which blobfs
	// takes for the end of the file.
	RangePastEnd(err error) bool
}

// StoreFunc returns the Store of a bucket that URLFactory opened from bucketURL.
type StoreFunc func(bucket *blob.Bucket, bucketURL *url.URL) (Store, error)

var (
	storesMu sync.RWMutex
	stores   = map[string]StoreFunc{}
)

// RegisterStore makes URLFactory give every bucket opened from a gocloud URL of
// driverScheme (such as "s3") the Store fn returns, unless Options.Store is
// set. The s3 backend registers "s3" when it is imported. Registering a scheme
// again replaces its function; an empty scheme or nil fn fails with
// fs.ErrInvalid.
func RegisterStore(driverScheme string, fn StoreFunc) error {
	if driverScheme == "" || fn == nil {
		return fmt.Errorf("blobfs: %w: RegisterStore(%q, fn) needs a gocloud URL scheme and a non-nil function", fs.ErrInvalid, driverScheme)
	}
	storesMu.Lock()
	defer storesMu.Unlock()
	stores[driverScheme] = fn
	return nil
}

// storeFor returns the registered StoreFunc of driverScheme, or nil.
func storeFor(driverScheme string) StoreFunc {
	storesMu.RLock()
	defer storesMu.RUnlock()
	return stores[driverScheme]
}

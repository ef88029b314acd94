package blobfs

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"sync"

	"gocloud.dev/blob"
)

// Store is the store-specific behaviour a scheme's package gives blobfs through
// Options.Store, so that blobfs itself links no cloud SDK. CheckKey is
// required; every other part is optional: a Store may also implement
// ExactKeys, BatchDeleter and ConditionalCopier, and blobfs uses what it
// implements (the s3 backend implements all of them). Without a Store keys go
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
	// BeforeList sets the listing prefix (never "") exactly.
	BeforeList(prefix string) func(as func(any) bool) error
	// ListedKey returns the exact key of a listed object or prefix.
	ListedKey(o *blob.ListObject) (string, error)
	// Attributes HEADs key exactly: size, modification time, ETag and metadata.
	// A missing key fails with an error that has HTTP status 404.
	Attributes(ctx context.Context, key string) (*blob.Attributes, error)
	// BeforeRead sets the key of a GET.
	BeforeRead(key string) func(as func(any) bool) error
	// BeforeWrite sets the key of an upload.
	BeforeWrite(key string) func(as func(any) bool) error
	// BeforeCopy sets the destination and source keys of a server-side copy.
	BeforeCopy(dst, src string) func(as func(any) bool) error
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
	// with gcerrors.FailedPrecondition; a store that refuses the condition
	// answers 501 Not Implemented and the copy is then repeated unconditionally.
	BeforeCopyNew(id, contentType string) func(as func(any) bool) error
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

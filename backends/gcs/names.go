package gcs

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"cloud.google.com/go/storage"
	"gocloud.dev/blob"
	"gocloud.dev/blob/gcsblob"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/plainkey"
)

// Exact names
//
// gocloud's gcsblob driver hex-escapes a few characters of every object name
// it sends (line breaks, the "/" of "../", and text that looks like its own
// "__0x41__" escapes) and unescapes the names it lists. Other clients
// (gsutil, gcsfs, Hadoop's GCS connector) name objects as they are. The
// store sends every name exactly (blobfs.ExactKeys): its hooks replace the
// driver's object handles with handles of the exact names, listings report
// the names GCS returned, and HEADs and deletes go to the GCS client
// directly.

var (
	_ blobfs.ExactKeys              = store{}
	_ blobfs.ExactConditionalWriter = store{}
	_ blobfs.BatchDeleter           = store{}
)

// errNoClient is the error of a request the store sends itself on a bucket
// that is not GCS's.
var errNoClient = errors.New("gcs: the bucket is not a GCS bucket of gocloud's gcsblob driver, so its names cannot be sent exactly")

// object returns the handle of the object key, named exactly.
func (s store) object(key string) (*storage.ObjectHandle, error) {
	if s.client == nil {
		return nil, errNoClient
	}
	return s.client.Bucket(s.bucket).Object(key), nil
}

// replaceHandle returns the hook that replaces the driver's object handle
// with h.
func replaceHandle(h *storage.ObjectHandle, err error) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		if err != nil {
			return err
		}
		var obj **storage.ObjectHandle
		if !as(&obj) {
			return errors.New("gcs: the GCS driver did not expose its object handle, so the name cannot be sent exactly")
		}
		*obj = h
		return nil
	}
}

// BeforeList sets the listing's prefix exactly.
func (store) BeforeList(prefix string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var q *storage.Query
		if !as(&q) {
			return errors.New("gcs: the GCS driver did not expose its query, so the prefix cannot be sent exactly")
		}
		q.Prefix = prefix
		return nil
	}
}

// ListedKey returns the name GCS listed o by.
func (store) ListedKey(o *blob.ListObject) (string, error) {
	var attrs storage.ObjectAttrs
	if !o.As(&attrs) {
		return o.Key, nil
	}
	if attrs.Prefix != "" {
		return attrs.Prefix, nil
	}
	return attrs.Name, nil
}

// Attributes reads the metadata of the object key (one GET of its
// metadata). Its ETag is the object's generation, which HeadVersion reads.
func (s store) Attributes(ctx context.Context, key string) (*blob.Attributes, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, err
	}
	a, err := obj.Attrs(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return nil, &plainkey.StatusError{Code: http.StatusNotFound, Err: err}
	}
	if err != nil {
		return nil, err
	}
	md := make(map[string]string, len(a.Metadata))
	for k, v := range a.Metadata {
		md[strings.ToLower(k)] = v // as gocloud's Attributes reports keys
	}
	return &blob.Attributes{
		CacheControl:       a.CacheControl,
		ContentDisposition: a.ContentDisposition,
		ContentEncoding:    a.ContentEncoding,
		ContentLanguage:    a.ContentLanguage,
		ContentType:        a.ContentType,
		Metadata:           md,
		CreateTime:         a.Created,
		ModTime:            a.Updated,
		Size:               a.Size,
		MD5:                a.MD5,
		ETag:               strconv.FormatInt(a.Generation, 10),
	}, nil
}

// BeforeRead sets the GET's object name exactly.
func (s store) BeforeRead(key string) func(as func(any) bool) error {
	return replaceHandle(s.object(key))
}

// BeforeWrite sets the upload's object name exactly.
func (s store) BeforeWrite(key string) func(as func(any) bool) error {
	return s.BeforeWriteIf(key, false)
}

// BeforeWriteIf sets the upload's object name exactly, with the condition
// that no object has it when ifNotExist (ifGenerationMatch=0).
func (s store) BeforeWriteIf(key string, ifNotExist bool) func(as func(any) bool) error {
	obj, err := s.object(key)
	if err == nil && ifNotExist {
		obj = obj.If(storage.Conditions{DoesNotExist: true})
	}
	return replaceHandle(obj, err)
}

// BeforeCopy sets both names of a copy exactly.
func (s store) BeforeCopy(dst, src string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		d, err := s.object(dst)
		if err != nil {
			return err
		}
		var h *gcsblob.CopyObjectHandles
		if !as(&h) {
			return errors.New("gcs: the GCS driver did not expose its copy's object handles, so the names cannot be sent exactly")
		}
		h.Dst, h.Src = d, s.client.Bucket(s.bucket).Object(src)
		return nil
	}
}

// deleteConcurrency is the number of deletes DeleteBatch sends at once.
const deleteConcurrency = 8

// DeleteBatch deletes keys (missing ones are fine), a few requests at a
// time: GCS's JSON API deletes one object a request.
func (s store) DeleteBatch(ctx context.Context, keys []string) error {
	if s.client == nil {
		return errNoClient
	}
	b := s.client.Bucket(s.bucket)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan string)
	for range min(deleteConcurrency, len(keys)) {
		wg.Go(func() {
			for k := range next {
				err := b.Object(k).Delete(ctx)
				var ge interface{ HTTPStatusCode() int }
				if err == nil || errors.Is(err, storage.ErrObjectNotExist) {
					continue
				}
				if errors.As(err, &ge) && ge.HTTPStatusCode() == http.StatusNotFound {
					continue
				}
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		})
	}
	for _, k := range keys {
		next <- k
	}
	close(next)
	wg.Wait()
	return first
}

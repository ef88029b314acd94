package s3

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/vfskit/vfskit/backends/blobfs"
)

// maxParts is the most parts a multipart upload may have (S3's limit).
const maxParts = 10000

// smallParts is how many parts of an upload may be smaller than its part
// size before the last (see upload.fill), so that a file may still grow to
// nearly maxParts parts of the part size.
const smallParts = maxParts / 10

// firstBufferSize is the smallest buffer an upload starts with; larger ones
// are powers of two up to the part size (bufferSize), so a file up to a part
// holds at most twice its size, in buffers reused across uploads (buffers.go).
const firstBufferSize = 64 << 10

// clientStore is the exactStore of a file system made by New or Factory: it
// also uploads objects itself (blobfs.Uploader), with Concurrency+1 part
// buffers (from a pool shared by all uploads, buffers.go) and no copy of a
// part but the one from Write into its buffer, and
// lists with its client directly (blobfs.Lister, list.go).
type clientStore struct {
	*exactStore
	// partSize and concurrency are the defaults of uploads whose
	// blobfs.UploadOptions give none.
	partSize, concurrency int
	// checksum is the algorithm uploads declare: CRC32 unless the client
	// computes checksums only where S3 requires them (S3-compatible stores).
	checksum s3types.ChecksumAlgorithm
	// sse and kmsKeyID, when set, are the server-side encryption every
	// upload asks for (a bucket URL's ssetype and kmskeyid, see urlStore).
	sse      s3types.ServerSideEncryption
	kmsKeyID string
	// log is told of an upload's marker left behind (Options.Logger); nil
	// means slog's default logger.
	log *slog.Logger
}

var _ blobfs.Uploader = (*clientStore)(nil)

// NewUpload starts the upload of the object key. It sends nothing yet.
// A multipart upload it starts is marked (see UploadMarkerPrefix).
func (s *clientStore) NewUpload(ctx context.Context, key string, o blobfs.UploadOptions) (blobfs.Upload, error) {
	return s.newUpload(ctx, key, o, true), nil
}

// newUpload returns the upload of key; marked makes a multipart upload it
// starts carry a marker object.
func (s *clientStore) newUpload(ctx context.Context, key string, o blobfs.UploadOptions, marked bool) *upload {
	partSize, concurrency := cmp.Or(o.PartSize, s.partSize), cmp.Or(o.Concurrency, s.concurrency)
	return &upload{s: s, ctx: ctx, key: key, opts: o, partSize: partSize, concurrency: concurrency, marked: marked,
		free: make(chan []byte, concurrency+1), slots: make(chan struct{}, concurrency)}
}

// encryption returns the server-side encryption uploads ask for, nil for
// none.
func (s *clientStore) encryption() (s3types.ServerSideEncryption, *string) {
	if s.kmsKeyID == "" {
		return s.sse, nil
	}
	return s.sse, aws.String(s.kmsKeyID)
}

// upload writes one object: the bytes written go into a buffer that grows up
// to the part size; Close sends a buffer that never filled as one PutObject
// straight from it. A file larger than a part becomes a multipart upload whose
// parts are sent from their buffers as they fill, at most Concurrency at once,
// with one more buffer that Write fills meanwhile (Concurrency+1 in all):
// when that one is full too, Write waits for a part to finish. Close
// completes the upload (conditionally under IfNotExist) or, when the context
// has ended or a part failed, aborts it on a fresh context.
type upload struct {
	s    *clientStore
	ctx  context.Context
	key  string
	opts blobfs.UploadOptions
	// partSize and concurrency are the options' or the store's.
	partSize, concurrency int
	// fill, when not 0, is the size (at most partSize) at which a buffer is
	// sent as a part while fewer than smallParts were sent: a recoverable
	// stream sets it (see mpUpload.Persist).
	fill int

	buf    []byte        // the part being filled
	free   chan []byte   // buffers of parts sent, back for reuse
	slots  chan struct{} // one per part in flight
	made   int           // part buffers taken
	id     *string       // the multipart upload's id, once started
	number int32         // the number of the last part sent
	wg     sync.WaitGroup
	closed bool
	// marked makes a multipart upload carry a marker object, whose key
	// marker is once it is sent.
	marked bool
	marker string

	mu    sync.Mutex // guards parts and err, which part uploads set
	parts []s3types.CompletedPart
	err   error

	// etag is the ETag S3 answered the request that published the object
	// with (PutObject or CompleteMultipartUpload).
	etag string
}

var _ blobfs.VersionedUpload = (*upload)(nil)

// Version returns the ETag of the object Close published, as S3 answered
// the request that published it; "" before.
func (u *upload) Version() string { return u.etag }

// Write copies p into part buffers, sending each part that fills.
func (u *upload) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		if err := u.failed(); err != nil {
			return written, err
		}
		full := u.full()
		if len(u.buf) >= full {
			if err := u.sendPart(); err != nil {
				return written, err
			}
		}
		if err := u.room(len(p)); err != nil {
			return written, err
		}
		n := copy(u.buf[len(u.buf):min(cap(u.buf), full)], p)
		u.buf = u.buf[:len(u.buf)+n]
		p, written = p[n:], written+n
	}
	return written, nil
}

// full is the size at which the buffer is sent as a part.
func (u *upload) full() int {
	if u.fill > 0 && u.number < smallParts {
		return u.fill
	}
	return u.partSize
}

// room makes u.buf able to take more bytes: the first buffer grows (doubling,
// up to the part size, at least to hold want more bytes, in the capacities of
// bufferSize); once a multipart upload runs, a full-size buffer is taken from
// those that came back, or from the pool while fewer than Concurrency+1 are
// taken. Buffers come from the pool (buffers.go) when one is free.
func (u *upload) room(want int) error {
	if u.buf != nil && len(u.buf) < cap(u.buf) {
		return nil
	}
	if u.id == nil {
		grown := append(getBuffer(bufferSize(max(2*cap(u.buf), len(u.buf)+want), u.partSize)), u.buf...)
		if cap(grown) < u.partSize {
			// Kept for the next file's growth; not when the file reaches
			// the part size (likely multipart: its part buffers will hold
			// memory enough).
			putBuffer(u.buf)
		}
		u.buf = grown
		return nil
	}
	if u.made <= u.concurrency {
		u.made++
		u.buf = getBuffer(u.partSize)
		return nil
	}
	select {
	case b := <-u.free:
		u.buf = b[:0]
		return nil
	case <-u.ctx.Done():
		return u.ctx.Err()
	}
}

// sendPart starts the multipart upload if needed and sends u.buf as the next
// part on its own goroutine; the buffer comes back through u.free.
func (u *upload) sendPart() error {
	if u.id == nil {
		sse, kms := u.s.encryption()
		out, err := sweepingClient{u.s.client}.CreateMultipartUpload(u.ctx, &awss3.CreateMultipartUploadInput{
			Bucket: aws.String(u.s.bucket), Key: aws.String(u.key),
			ContentType: aws.String(u.opts.ContentType), Metadata: u.opts.Metadata,
			ContentEncoding: optional(u.opts.ContentEncoding), CacheControl: optional(u.opts.CacheControl),
			ChecksumAlgorithm: u.s.checksum, ServerSideEncryption: sse, SSEKMSKeyId: kms,
		})
		if err != nil {
			return err
		}
		u.id, u.made = out.UploadId, 1 // the first buffer is a part buffer now
		if u.marked {
			if err := u.mark(); err != nil {
				return err
			}
		}
	}
	if u.number == maxParts {
		return fmt.Errorf("s3: the upload of %q needs more than %d parts of %d bytes; raise s3.Options.PartSize", u.key, maxParts, u.partSize)
	}
	select {
	case u.slots <- struct{}{}:
	case <-u.ctx.Done():
		return u.ctx.Err()
	}
	u.number++
	part, number := u.buf, u.number
	u.buf = nil
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		defer func() { u.free <- part; <-u.slots }()
		b := newBody(part)
		var r io.Reader = b
		if len(part) == 0 {
			r = http.NoBody // the one part of an empty recoverable stream, sent with its length
		}
		out, err := u.s.client.UploadPart(u.ctx, &awss3.UploadPartInput{
			Bucket: aws.String(u.s.bucket), Key: aws.String(u.key), UploadId: u.id,
			PartNumber: aws.Int32(number), Body: r, ContentLength: aws.Int64(int64(len(part))),
			ChecksumAlgorithm: u.s.checksum,
		})
		b.fence() // before part is filled again
		u.mu.Lock()
		defer u.mu.Unlock()
		if err != nil {
			if u.err == nil || isCancel(u.err) && !isCancel(err) {
				u.err = err
			}
			return
		}
		u.parts = append(u.parts, s3types.CompletedPart{
			PartNumber: aws.Int32(number), ETag: out.ETag,
			ChecksumCRC32: out.ChecksumCRC32, ChecksumCRC32C: out.ChecksumCRC32C,
			ChecksumSHA1: out.ChecksumSHA1, ChecksumSHA256: out.ChecksumSHA256,
		})
	}()
	return nil
}

// failed returns the first error of a part, or the context's.
func (u *upload) failed() error {
	u.mu.Lock()
	err := u.err
	u.mu.Unlock()
	if err != nil {
		return err
	}
	return u.ctx.Err()
}

// isCancel reports whether err is a context's end: a symptom, kept only until
// a real cause is known.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Close publishes the object, or aborts the upload (nothing published) when
// the context has ended or a part failed. It returns the first error. Its
// buffers go back to the pool.
func (u *upload) Close() error {
	if u.closed {
		return errors.New("s3: upload closed twice")
	}
	u.closed = true
	defer u.release()
	if err := u.ctx.Err(); err != nil {
		return u.abort(err)
	}
	var cond *string
	if u.opts.IfNotExist {
		cond = aws.String("*")
	}
	if u.id == nil {
		sse, kms := u.s.encryption()
		b := newBody(u.buf)
		out, err := u.s.client.PutObject(u.ctx, &awss3.PutObjectInput{
			Bucket: aws.String(u.s.bucket), Key: aws.String(u.key),
			Body: b, ContentLength: aws.Int64(int64(len(u.buf))),
			ContentType: aws.String(u.opts.ContentType), Metadata: u.opts.Metadata,
			ContentEncoding: optional(u.opts.ContentEncoding), CacheControl: optional(u.opts.CacheControl),
			IfNoneMatch: cond, ChecksumAlgorithm: u.s.checksum,
			ServerSideEncryption: sse, SSEKMSKeyId: kms,
		})
		b.fence() // before release pools u.buf
		if err == nil {
			u.etag = aws.ToString(out.ETag)
		}
		return err
	}
	if len(u.buf) > 0 {
		if err := u.sendPart(); err != nil {
			return u.abort(err)
		}
	}
	u.wg.Wait()
	if err := u.failed(); err != nil {
		return u.abort(err)
	}
	sort.Slice(u.parts, func(i, j int) bool { return *u.parts[i].PartNumber < *u.parts[j].PartNumber })
	out, err := u.s.client.CompleteMultipartUpload(u.ctx, &awss3.CompleteMultipartUploadInput{
		Bucket: aws.String(u.s.bucket), Key: aws.String(u.key), UploadId: u.id,
		MultipartUpload: &s3types.CompletedMultipartUpload{Parts: u.parts},
		IfNoneMatch:     cond,
	})
	if err != nil {
		// Aborting an upload that did complete (its answer lost) fails with
		// NoSuchUpload and changes nothing.
		return u.abort(err)
	}
	u.etag = aws.ToString(out.ETag)
	u.unmark()
	return nil
}

// release gives the upload's buffers back to the pool once no part is in
// flight: the one being filled and those of parts sent (fenced by then).
func (u *upload) release() {
	u.wg.Wait()
	putBuffer(u.buf)
	u.buf = nil
	for {
		select {
		case b := <-u.free:
			putBuffer(b)
		default:
			return
		}
	}
}

// abort waits for the parts in flight, aborts the multipart upload (if one
// was started) on a fresh context, so that an ended context still aborts it,
// deletes its marker once the upload is gone, and returns cause. An upload
// the server no longer knows (NoSuchUpload: a CompleteMultipartUpload whose
// answer was lost did complete it, and its retry failed) is gone too.
func (u *upload) abort(cause error) error {
	u.wg.Wait()
	if u.id == nil {
		return cause
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(u.ctx), failTimeout)
	defer cancel()
	if _, err := u.s.client.AbortMultipartUpload(ctx, &awss3.AbortMultipartUploadInput{
		Bucket: aws.String(u.s.bucket), Key: aws.String(u.key), UploadId: u.id,
	}); err != nil && !isNoSuchUpload(err) {
		// The marker stays with the upload: clean-temp removes both.
		return fmt.Errorf("%w (and aborting multipart upload %s failed: %v)", cause, aws.ToString(u.id), err)
	}
	u.unmark()
	return cause
}

// optional returns s as an optional request field: nil for "".
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

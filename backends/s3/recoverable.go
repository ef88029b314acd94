package s3

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/vfskit/vfskit/backends/blobfs"
)

// UploadIDMetadata is the metadata key (x-amz-meta-vfskit-upload-id) whose
// value, on the marker of Create's multipart upload (UploadMarkerPrefix) and
// on the temporary object of a recoverable stream's persisted tail
// (blobfs.RecoverableTempPrefix), is the id of the multipart upload it belongs
// to. ListMultipartUploads shows no metadata: a recoverable stream's upload is
// known as such only where a tail names it, and otherwise only by its tokens.
const UploadIDMetadata = "vfskit-upload-id"

var _ blobfs.RecoverableStore = (*clientStore)(nil)

// mpState is the state of a recoverable multipart upload, sealed into its
// tokens by blobfs.
type mpState struct {
	// Upload is the multipart upload's id; "" while no part was sent.
	Upload string `json:"u,omitempty"`
	// Commit is the commit id the upload carries in its metadata (that of
	// the incarnation that started it, see blobfs.CommitIdentifier); ""
	// in a token that predates it, whose upload carries the stream's write
	// id.
	Commit string `json:"c,omitempty"`
	// Parts are the parts uploaded, in order.
	Parts []mpPart `json:"p,omitempty"`
	// Tail is the key of the temporary object that holds the bytes after
	// the last part, TailSize bytes; "" when there are none.
	Tail     string `json:"t,omitempty"`
	TailSize int    `json:"n,omitempty"`
}

// mpPart is an uploaded part: its number, ETag and checksums.
type mpPart struct {
	N      int32  `json:"n"`
	ETag   string `json:"e"`
	CRC32  string `json:"c,omitempty"`
	CRC32C string `json:"cc,omitempty"`
	SHA1   string `json:"s1,omitempty"`
	SHA256 string `json:"s2,omitempty"`
}

// RecoverableKind is the format of the state: multipart upload id, parts,
// tail object.
func (*clientStore) RecoverableKind() string { return "s3-multipart/2" }

// OpenRecoverable starts a recoverable stream of key as a multipart upload:
// parts of the part size are uploaded as they fill (Concurrency at once, as
// Create does), the upload itself starts with the first part, or at Persist
// or CloseForCommit.
func (s *clientStore) OpenRecoverable(ctx context.Context, key string, o blobfs.RecoverableOptions) (blobfs.RecoverableUpload, error) {
	up := s.newUpload(ctx, key, o.UploadOptions, false)
	return &mpUpload{u: up, o: o}, nil
}

// ResumeRecoverable continues the multipart upload of state: it checks that
// the upload still exists (one ListParts) and reads the tail back into the
// part buffer (one GET).
func (s *clientStore) ResumeRecoverable(ctx context.Context, key string, state []byte, o blobfs.RecoverableOptions) (blobfs.RecoverableUpload, error) {
	st, err := decodeMP(key, state)
	if err != nil {
		return nil, err
	}
	up := s.newUpload(ctx, key, o.UploadOptions, false)
	u := up
	r := &mpUpload{u: u, o: o, persisted: true}
	if st.Upload != "" {
		r.commit = cmp.Or(st.Commit, o.WriteID)
		if err := s.checkUpload(ctx, key, st.Upload); err != nil {
			return nil, err
		}
		u.id, u.made = aws.String(st.Upload), 1
		u.parts = completedParts(st.Parts)
		u.number = st.Parts[len(st.Parts)-1].N
		u.buf = getBuffer(u.partSize)
	} else {
		u.buf = getBuffer(bufferSize(st.TailSize, u.partSize))
	}
	if st.Tail != "" {
		if u.buf, err = s.readTail(ctx, st.Tail, st.TailSize, u.buf); err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

// checkUpload fails with fs.ErrNotExist when the multipart upload id of key
// is gone.
func (s *clientStore) checkUpload(ctx context.Context, key, id string) error {
	_, err := s.client.ListParts(ctx, &awss3.ListPartsInput{Bucket: aws.String(s.bucket), Key: aws.String(key),
		UploadId: aws.String(id), MaxParts: aws.Int32(1)})
	if isNoSuchUpload(err) {
		return fmt.Errorf("%w: multipart upload %s of %q is gone (completed, or aborted by a lifecycle rule for incomplete uploads or by hand): %v", fs.ErrNotExist, id, key, err)
	}
	return err
}

// readTail appends the n bytes of the object tail to buf.
func (s *clientStore) readTail(ctx context.Context, tail string, n int, buf []byte) ([]byte, error) {
	out, err := s.client.GetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(tail)})
	if err != nil {
		var nf *s3types.NoSuchKey
		if errors.As(err, &nf) {
			return buf, fmt.Errorf("%w: the persisted tail %q is gone (cleaned up, or the stream was committed): %v", fs.ErrNotExist, tail, err)
		}
		return buf, err
	}
	defer out.Body.Close()
	if aws.ToInt64(out.ContentLength) != int64(n) {
		return buf, fmt.Errorf("%w: the persisted tail %q holds %d bytes, the token says %d", fs.ErrInvalid, tail, aws.ToInt64(out.ContentLength), n)
	}
	start := len(buf)
	buf = buf[:start+n]
	if _, err := io.ReadFull(out.Body, buf[start:]); err != nil {
		return buf[:start], fmt.Errorf("read the persisted tail %q: %w", tail, err)
	}
	return buf, nil
}

// CommitRecoverable completes the multipart upload: the object appears
// whole, replacing an existing one, and the upload is gone, so that it can
// never be completed again. An upload already gone (completed before, or
// aborted) fails with fs.ErrNotExist, writing nothing. A lost answer makes
// the retry fail with NoSuchUpload; blobfs then finds the object by its
// commit id. Every stream closed for commit has an upload, an empty one a
// part of no bytes.
func (s *clientStore) CommitRecoverable(ctx context.Context, key, id string, state []byte) error {
	st, err := decodeMP(key, state)
	if err != nil {
		return err
	}
	if st.Tail != "" {
		return fmt.Errorf("%w: the state of %q is not that of a stream closed for commit", fs.ErrInvalid, key)
	}
	if st.Upload == "" {
		return fmt.Errorf("%w: the commit state of %q names no multipart upload (every stream closed for commit has one, an empty one too)", fs.ErrNotExist, key)
	}
	_, err = s.client.CompleteMultipartUpload(ctx, &awss3.CompleteMultipartUploadInput{
		Bucket: aws.String(s.bucket), Key: aws.String(key), UploadId: aws.String(st.Upload),
		MultipartUpload: &s3types.CompletedMultipartUpload{Parts: completedParts(st.Parts)},
	})
	if isNoSuchUpload(err) {
		return fmt.Errorf("%w: multipart upload %s of %q is gone (completed before, or aborted): %v", fs.ErrNotExist, st.Upload, key, err)
	}
	return err
}

// CleanupRecoverable deletes the temporary object of the state's tail.
func (s *clientStore) CleanupRecoverable(ctx context.Context, key string, state []byte) error {
	st, err := decodeMP(key, state)
	if err != nil || st.Tail == "" {
		return err
	}
	_, err = s.client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(st.Tail)})
	return err
}

// decodeMP decodes and checks a state of key: parts numbered upwards, a
// tail that is a temporary object next to key.
func decodeMP(key string, state []byte) (mpState, error) {
	var st mpState
	bad := func(why string) error {
		return fmt.Errorf("%w: multipart state of %q: %s", fs.ErrInvalid, key, why)
	}
	if err := json.Unmarshal(state, &st); err != nil {
		return st, bad(err.Error())
	}
	if (len(st.Parts) > 0) != (st.Upload != "") || len(st.Parts) > maxParts {
		return st, bad("parts without an upload, an upload without parts, or too many parts")
	}
	for i, p := range st.Parts {
		if p.N < 1 || i > 0 && p.N <= st.Parts[i-1].N || p.ETag == "" {
			return st, bad(fmt.Sprintf("part %d (number %d) out of order or without ETag", i, p.N))
		}
	}
	if st.Tail != "" && (!blobfs.IsRecoverableTemp(st.Tail) || path.Dir(st.Tail) != path.Dir(key) ||
		st.TailSize <= 0 || st.TailSize >= MinPartSize) {
		return st, bad(fmt.Sprintf("tail %q of %d bytes is not a temporary object of the stream", st.Tail, st.TailSize))
	}
	return st, nil
}

func completedParts(ps []mpPart) []s3types.CompletedPart {
	out := make([]s3types.CompletedPart, len(ps))
	for i, p := range ps {
		out[i] = s3types.CompletedPart{PartNumber: aws.Int32(p.N), ETag: aws.String(p.ETag),
			ChecksumCRC32: opt(p.CRC32), ChecksumCRC32C: opt(p.CRC32C), ChecksumSHA1: opt(p.SHA1), ChecksumSHA256: opt(p.SHA256)}
	}
	return out
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}

func isNoSuchUpload(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "NoSuchUpload" {
		return true
	}
	var nsu *s3types.NoSuchUpload
	return errors.As(err, &nsu)
}

// mpUpload is a recoverable stream's multipart upload: Create's upload
// (part buffers, Concurrency parts in flight) with Persist.
type mpUpload struct {
	u *upload
	o blobfs.RecoverableOptions
	// tails is the number of tail objects this incarnation wrote.
	tails int
	// since is the number of bytes written since the last Persist (or
	// since Open or Recover).
	since int
	// commit is the commit id of the upload it resumed ("" when it starts
	// its own, which carries the incarnation's, o.CommitID).
	commit string
	// persisted is true once a token refers to the upload: Close then keeps
	// it.
	persisted bool
	done      bool
}

func (r *mpUpload) Write(p []byte) (int, error) {
	n, err := r.u.Write(p)
	r.since += n
	return n, err
}

// Persist uploads the buffered bytes as a part when they are at least
// MinPartSize, waits for every part in flight, and stores a smaller rest (the
// tail) as a temporary object (one PUT). It then sizes the parts of the next
// interval after this one (partFill).
func (r *mpUpload) Persist(ctx context.Context) ([]byte, error) {
	st, err := r.settle(len(r.u.buf) >= MinPartSize)
	if err != nil {
		return nil, err
	}
	if len(r.u.buf) > 0 {
		st.Tail, st.TailSize = blobfs.RecoverableTempKey(r.u.key, r.o.WriteID, r.o.Epoch, r.tails), len(r.u.buf)
		r.tails++
		if err := r.putTail(ctx, st); err != nil {
			// The tail may be there all the same (a lost answer), and no
			// token will name it: remove it, as far as the store lets us.
			_, _ = r.u.s.client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: aws.String(r.u.s.bucket), Key: aws.String(st.Tail)})
			return nil, err
		}
	}
	r.persisted = true
	// The next interval holds the tail and, if as long as this one, since
	// more bytes.
	r.u.fill, r.since = partFill(len(r.u.buf)+r.since, r.u.partSize, r.u.concurrency, int(r.u.number)), 0
	return json.Marshal(st)
}

// partFill returns the size at which the parts after a Persist are sent (0
// for the part size), given n, the bytes the next interval (up to the next
// Persist) is expected to hold: the tail kept in the buffer and as many
// bytes as were written since the Persist before. Persist waits for every
// part in flight, so between two Persists at most as many parts upload at
// once as the interval holds: an interval of 32 MiB in parts of 8 MiB keeps
// only 4 of 5 connections busy, and the last part to finish uploads alone.
// When n holds fewer than concurrency parts of partSize, it is cut into
// concurrency parts (fewer when that would make them smaller than
// MinPartSize), each of at least MinPartSize, the last of them too: an
// interval as long as expected leaves no tail object. Only the first
// smallParts parts of an upload are made smaller than partSize (parts is the
// number sent so far), so a file may still grow to nearly maxParts parts of
// partSize.
func partFill(n, partSize, concurrency, parts int) int {
	if n >= partSize*concurrency || parts >= smallParts {
		return 0
	}
	for k := min(concurrency, n/MinPartSize); k > 1; k-- {
		fill := (n + k - 1) / k
		if n-(k-1)*fill >= MinPartSize {
			if fill >= partSize {
				return 0
			}
			return fill
		}
	}
	return 0
}

// settle sends the buffer as a part when send (starting the upload if
// needed), waits for the parts in flight and returns the upload's state.
func (r *mpUpload) settle(send bool) (mpState, error) {
	u := r.u
	if err := u.failed(); err != nil {
		return mpState{}, err
	}
	if send {
		if err := u.sendPart(); err != nil {
			return mpState{}, err
		}
	}
	u.wg.Wait()
	if err := u.failed(); err != nil {
		return mpState{}, err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	slices.SortFunc(u.parts, func(a, b s3types.CompletedPart) int { return int(*a.PartNumber - *b.PartNumber) })
	st := mpState{Upload: aws.ToString(u.id), Parts: make([]mpPart, len(u.parts))}
	if st.Upload != "" {
		st.Commit = r.CommitID()
	}
	for i, p := range u.parts {
		st.Parts[i] = mpPart{N: *p.PartNumber, ETag: aws.ToString(p.ETag), CRC32: aws.ToString(p.ChecksumCRC32),
			CRC32C: aws.ToString(p.ChecksumCRC32C), SHA1: aws.ToString(p.ChecksumSHA1), SHA256: aws.ToString(p.ChecksumSHA256)}
	}
	return st, nil
}

// putTail writes the buffer to the temporary object st.Tail.
func (r *mpUpload) putTail(ctx context.Context, st mpState) error {
	s := r.u.s
	md := map[string]string{blobfs.WriteIDMetadata: r.o.WriteID, blobfs.RecoverableMetadata: r.u.key}
	if st.Upload != "" {
		md[UploadIDMetadata] = st.Upload
	}
	sse, kms := s.encryption()
	b := newBody(r.u.buf)
	_, err := s.client.PutObject(ctx, &awss3.PutObjectInput{
		Bucket: aws.String(s.bucket), Key: aws.String(st.Tail), Body: b, ContentLength: aws.Int64(int64(len(r.u.buf))),
		ContentType: aws.String(r.u.opts.ContentType), Metadata: md, ChecksumAlgorithm: s.checksum,
		ServerSideEncryption: sse, SSEKMSKeyId: kms,
	})
	b.fence() // before the buffer takes more bytes
	return err
}

// CommitID is the commit id the completed object carries: that of the
// incarnation that started the upload.
func (r *mpUpload) CommitID() string { return cmp.Or(r.commit, r.o.CommitID) }

// CloseForCommit uploads the buffered bytes as the last part and returns the
// state that CommitRecoverable completes. An empty file is an upload of one
// part of no bytes: completing it consumes the upload, as for any other
// stream, so that a commit is never repeated.
func (r *mpUpload) CloseForCommit(context.Context) ([]byte, error) {
	u := r.u
	st, err := r.settle(len(u.buf) > 0 || u.id == nil)
	r.done = true
	u.release()
	if err != nil {
		return nil, err
	}
	return json.Marshal(st)
}

// Close gives the stream up: the parts in flight finish, buffers go back to
// the pool; an upload no token refers to is aborted, a persisted one stays
// for Recover.
func (r *mpUpload) Close() error {
	if r.done {
		return nil
	}
	r.done = true
	u := r.u
	u.wg.Wait()
	u.release()
	if r.persisted || u.id == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(u.ctx), failTimeout)
	defer cancel()
	_, err := u.s.client.AbortMultipartUpload(ctx, &awss3.AbortMultipartUploadInput{
		Bucket: aws.String(u.s.bucket), Key: aws.String(u.key), UploadId: u.id})
	return err
}

package blobfs

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// RecoverableStore is the optional part of a Store that writes recoverable
// streams (vfs.RecoverableWriter) the store's own way: the s3 backend's
// multipart uploads, the azblob backend's staged blocks. blobfs qualifies the
// path, checks the key, seals the store's state into the tokens (with the
// key, the write id and the position) and recognises a commit that already
// happened, by proof; the store moves the bytes. Without a RecoverableStore blobfs
// writes a stream as temporary objects, one per persisted piece, and
// concatenates them at commit: server-side when the Store is a Composer (the
// gcs backend's), else by a streamed copy through this process.
type RecoverableStore interface {
	// RecoverableKind names the format of the states the store's uploads
	// return, with a version (such as "s3-multipart/1"): a token of another
	// kind is refused with fs.ErrInvalid.
	RecoverableKind() string
	// OpenRecoverable starts the recoverable upload of the object key. It may
	// send nothing before bytes are written or Persist is called. ctx
	// governs the upload's requests until CloseForCommit or Close.
	OpenRecoverable(ctx context.Context, key string, o RecoverableOptions) (RecoverableUpload, error)
	// ResumeRecoverable continues the upload of key from state (what Persist
	// returned), at exactly the bytes persisted then.
	ResumeRecoverable(ctx context.Context, key string, state []byte, o RecoverableOptions) (RecoverableUpload, error)
	// CommitRecoverable publishes the object key from state (what
	// CloseForCommit returned) atomically, replacing an existing object,
	// with metadata {WriteIDMetadata: id}, id being the commit id (see
	// CommitIdentifier). Publishing consumes what the state names (S3's
	// multipart upload, Azure's uncommitted blocks): when that is gone the
	// commit writes nothing and fails with an error wrapping fs.ErrNotExist.
	// An error after which the object may have been published anyway (a lost
	// answer) is fine: blobfs then HEADs key and takes an object with the
	// commit id and the stream's size for a success.
	CommitRecoverable(ctx context.Context, key, id string, state []byte) error
	// CleanupRecoverable removes what the store keeps for state alone (such
	// as the temporary object of the tail it persisted), never what a later
	// state of the same stream needs. Missing objects are fine.
	CleanupRecoverable(ctx context.Context, key string, state []byte) error
}

// RecoverableOptions are what a recoverable upload is given.
type RecoverableOptions struct {
	// UploadOptions are those of every object blobfs writes; their Metadata
	// holds WriteIDMetadata: the stream's id.
	UploadOptions
	// WriteID is the stream's id, the same through every recovery: it
	// names the stream's temporary objects (RecoverableTempKey).
	WriteID string
	// CommitID is the id of this incarnation of the stream (Open or one
	// Recover), fresh and random: the object it commits carries it
	// (WriteIDMetadata; UploadOptions.Metadata holds it), so that the
	// commit of a stream recovered from a token is never taken for the
	// commit of another incarnation of that stream.
	CommitID string
	// Epoch is a fresh random id of this incarnation of the stream (Open or
	// one Recover): temporary objects named with it (RecoverableTempKey) never
	// collide with those of a dead incarnation.
	Epoch string
}

// RecoverableUpload is a recoverable upload in progress. It is not safe for
// concurrent use; blobfs calls Close, or CloseForCommit, exactly once.
type RecoverableUpload interface {
	// Write takes p; parts may be sent as they fill.
	Write(p []byte) (int, error)
	// Persist makes every byte written durable and returns the state that
	// ResumeRecoverable continues from.
	Persist(ctx context.Context) ([]byte, error)
	// CloseForCommit makes every byte written durable, ends the upload and
	// returns the state that CommitRecoverable publishes.
	CloseForCommit(ctx context.Context) ([]byte, error)
	// Close gives the upload up without committing: what was persisted
	// stays recoverable.
	Close() error
}

// CommitIdentifier is the optional part of a RecoverableUpload whose
// committed object carries another commit id than the incarnation's own
// (RecoverableOptions.CommitID): S3's multipart upload carries the metadata
// it was started with, by the incarnation that sent its first part. blobfs
// asks it after CloseForCommit and proves the commit by that id.
type CommitIdentifier interface {
	// CommitID is the WriteIDMetadata value the committed object carries.
	CommitID() string
}

// Composer is the optional part of a Store that concatenates objects
// server-side (GCS compose). blobfs uses it to commit a recoverable stream
// written as temporary objects, composing in rounds when there are more
// pieces than one request takes.
type Composer interface {
	// MaxComposeSources is the most sources one Compose takes (32 on GCS).
	MaxComposeSources() int
	// Compose writes the concatenation of the objects srcs (in order, at
	// least one, at most MaxComposeSources) to dst atomically, replacing an
	// existing object, with the content type and metadata of o. versions
	// holds, for each source, the version (ConditionalReader's form) it
	// must be at, "" for any: a source at another version fails the compose,
	// writing nothing.
	Compose(ctx context.Context, dst string, srcs, versions []string, o UploadOptions) error
}

// RecoverableTempPrefix starts the name of every temporary object a
// recoverable stream keeps next to its target: the tails of persisted S3
// multipart uploads and the pieces of streams written as temporary objects,
// named dir/.vfskit-rw-<write id>-<epoch>-<n>-<check> (see RecoverableTempKey).
// The check is 8 hex digits of a hash of the rest of the name, so that no
// user's file is taken for one by accident: only names of exactly that form
// (IsRecoverableTemp) are temporary objects, which listings leave out (a cp -r
// or mv running beside the stream never copies one); any other name,
// ".vfskit-rw-notes.txt" included, is a user's file like any other. Each also
// carries the metadata RecoverableMetadata. They are the stream's recoverable
// state until its commit, which deletes every one of the stream (by its write
// id). vfs.CleanTemp (`vfskit clean-temp`) never removes them, however old: a
// token may still need them. Those of a stream that is given up stay until
// deleted by hand (a tail by CleanupRecoverableState with its token);
// docs/exactly-once.md says what each scheme leaves.
const RecoverableTempPrefix = ".vfskit-rw-"

// RecoverableMetadata is the metadata key (x-amz-meta-vfskit-recoverable on
// S3) whose value, on every temporary object of a recoverable stream, is the
// key of the stream's target.
const RecoverableMetadata = "vfskit-recoverable"

// RecoverableTempKey returns the key of temporary object n of the stream
// with write id id writing key, in the incarnation epoch:
// dir/.vfskit-rw-<id>-<epoch>-<n>-<check>, next to key.
func RecoverableTempKey(key, id, epoch string, n int) string {
	k := recoverableTempPrefix(key, id) + epoch + "-" + strconv.Itoa(n)
	return k + "-" + tempCheck(k[strings.LastIndexByte(k, '/')+1:])
}

// tempCheckLen is the length, in hex digits, of a temporary object name's
// check.
const tempCheckLen = 8

// tempCheck returns the check of the temporary object name unchecked.
func tempCheck(unchecked string) string {
	sum := sha256.Sum256([]byte("vfskit recoverable temp " + unchecked))
	return hex.EncodeToString(sum[:tempCheckLen/2])
}

// IsRecoverableTemp reports whether key names a temporary object of a
// recoverable stream: its last segment is RecoverableTempPrefix, the rest of a
// name and that rest's check (RecoverableTempKey). Listings leave such objects
// out. Until its stream's commit such an object is the stream's recoverable
// state: vfs.CleanTemp never removes one, and whatever removes them by age must
// wait longer than the recovery window (docs/exactly-once.md).
func IsRecoverableTemp(key string) bool {
	name := key[strings.LastIndexByte(key, '/')+1:]
	n := len(name) - tempCheckLen - 1
	if !strings.HasPrefix(name, RecoverableTempPrefix) || n <= len(RecoverableTempPrefix) || name[n] != '-' {
		return false
	}
	return name[n+1:] == tempCheck(name[:n])
}

// recoverableTempPrefix starts the key of every temporary object of the
// stream with write id id writing key, whatever its incarnation.
func recoverableTempPrefix(key, id string) string {
	dir := ""
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		dir = key[:i+1]
	}
	return dir + RecoverableTempPrefix + id + "-"
}

// tempKeyRoom is how much longer than its target's key a temporary object's
// key is at most (RecoverableTempKey with a 32-digit id, an 8-digit epoch, a
// piece number and the check).
const tempKeyRoom = len(RecoverableTempPrefix) + 32 + 1 + 8 + 1 + 10 + 1 + tempCheckLen

// newEpoch returns a fresh incarnation id: 8 random hex digits.
func newEpoch() string { return newWriteID()[:8] }

// RecoverableWriter returns the file system's vfs.RecoverableWriter: the
// Store's RecoverableStore when it has one, else temporary objects per
// persisted piece concatenated at commit (see RecoverableStore). Tokens are
// sealed with vfs.SealToken for this file system's URI: a token of another
// bucket or scheme is refused with fs.ErrInvalid.
func (f *FileSystem) RecoverableWriter() (vfs.RecoverableWriter, error) {
	rs, ok := f.opts.Store.(RecoverableStore)
	if !ok {
		rs = piecesStore{f: f}
	}
	return &recoverableWriter{f: f, rs: rs, owner: f.uri.String()}, nil
}

var _ vfs.RecoverableWriterFS = (*FileSystem)(nil)

// recoverableWriter is a FileSystem's vfs.RecoverableWriter.
type recoverableWriter struct {
	f     *FileSystem
	rs    RecoverableStore
	owner string
}

// tokenBody is what every token of a recoverableWriter holds.
type tokenBody struct {
	Key string `json:"k"`
	ID  string `json:"w"`
	// Commit is the commit id the committed object carries (commit tokens
	// only; a token without it commits with ID).
	Commit string `json:"c,omitempty"`
	Pos    int64  `json:"p"`
	State  []byte `json:"s"`
}

// commitID is the WriteIDMetadata value b's committed object carries.
func (b tokenBody) commitID() string { return cmp.Or(b.Commit, b.ID) }

func (w *recoverableWriter) kind(commit bool) string {
	if commit {
		return "blobfs-commit/" + w.rs.RecoverableKind()
	}
	return "blobfs-resume/" + w.rs.RecoverableKind()
}

func (w *recoverableWriter) seal(commit bool, b tokenBody) []byte {
	payload, _ := json.Marshal(b) // strings, numbers and bytes always marshal
	return vfs.SealToken(w.kind(commit), w.owner, payload)
}

// open checks tok and returns its body and the path of its target.
func (w *recoverableWriter) open(op string, commit bool, tok []byte) (tokenBody, vfs.Path, error) {
	var b tokenBody
	payload, err := vfs.OpenToken(w.kind(commit), w.owner, tok)
	if err == nil {
		err = json.Unmarshal(payload, &b)
		if err == nil && (b.Key == "" || b.ID == "" || b.Pos < 0) {
			err = fmt.Errorf("%w: token of %s names no object", fs.ErrInvalid, vfs.RedactURL(w.f.uri))
		} else if err != nil {
			err = fmt.Errorf("%w: token body: %v", fs.ErrInvalid, err)
		}
	}
	if err != nil {
		return b, vfs.Path{}, vfs.NewPathError(op, w.f.root, err)
	}
	q := w.f.root.Join(strings.Split(b.Key, "/")...)
	if _, err := w.f.checkNewKey(op, q); err != nil {
		return b, vfs.Path{}, err
	}
	return b, q, nil
}

// options are those of a new incarnation of the stream id: a fresh epoch
// and commit id.
func (w *recoverableWriter) options(id string) RecoverableOptions {
	cid := newWriteID()
	return RecoverableOptions{
		UploadOptions: UploadOptions{ContentType: contentType, Metadata: map[string]string{WriteIDMetadata: cid},
			PartSize: w.f.opts.PartSize, Concurrency: w.f.opts.Concurrency},
		WriteID: id, CommitID: cid, Epoch: newEpoch(),
	}
}

// Open starts a recoverable stream for the file at p: nothing is visible at
// p before its Commit. ctx governs the stream's uploads until CloseForCommit
// or Close.
func (w *recoverableWriter) Open(ctx context.Context, p vfs.Path) (vfs.RecoverableOutputStream, error) {
	q, k, err := w.f.qualifiedNewKey("open recoverable", p)
	if err != nil {
		return nil, err
	}
	if k == "" {
		return nil, vfs.NewPathError("open recoverable", q, vfs.ErrIsDir)
	}
	if max := w.f.opts.MaxKeyLength; max > 0 && len(k)+tempKeyRoom > max {
		return nil, invalid("open recoverable", q, "object key is %d bytes long; a recoverable stream's temporary objects need %d more, and the store allows at most %d", len(k), tempKeyRoom, max)
	}
	id := newWriteID()
	o := w.options(id)
	up, err := w.rs.OpenRecoverable(ctx, k, o)
	if err != nil {
		return nil, w.f.pathError("open recoverable", q, err)
	}
	return &recoverableStream{w: w, path: q, key: k, id: id, cid: o.CommitID, up: up}, nil
}

// Recover continues the stream r was persisted from, at exactly the bytes
// persisted then.
func (w *recoverableWriter) Recover(ctx context.Context, r vfs.ResumeRecoverable) (vfs.RecoverableOutputStream, error) {
	b, q, err := w.open("recover", false, r)
	if err != nil {
		return nil, err
	}
	o := w.options(b.ID)
	up, err := w.rs.ResumeRecoverable(ctx, b.Key, b.State, o)
	if err != nil {
		return nil, w.f.pathError("recover", q, err)
	}
	return &recoverableStream{w: w, path: q, key: b.Key, id: b.ID, cid: o.CommitID, up: up, pos: b.Pos}, nil
}

// RecoverForCommit returns the committer of a stream closed for commit.
func (w *recoverableWriter) RecoverForCommit(ctx context.Context, r vfs.CommitRecoverable) (vfs.Committer, error) {
	b, q, err := w.open("recover for commit", true, r)
	if err != nil {
		return nil, err
	}
	return &committer{w: w, path: q, body: b, token: r}, nil
}

// CleanupRecoverableState removes what the store keeps for r alone (the
// temporary object of an S3 tail); a stream written as pieces keeps nothing
// for one token alone, and its commit removes its pieces.
func (w *recoverableWriter) CleanupRecoverableState(ctx context.Context, r vfs.ResumeRecoverable) error {
	b, q, err := w.open("cleanup recoverable", false, r)
	if err != nil {
		return err
	}
	return w.f.pathError("cleanup recoverable", q, w.rs.CleanupRecoverable(ctx, b.Key, b.State))
}

// recoverableStream is a vfs.RecoverableOutputStream over a RecoverableUpload.
type recoverableStream struct {
	w       *recoverableWriter
	path    vfs.Path
	key, id string
	cid     string // the incarnation's commit id
	up      RecoverableUpload

	mu     sync.Mutex
	pos    int64
	err    error // the first write error: every later call fails with it
	closed bool
}

// Write hands p to the upload.
func (s *recoverableStream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable("write"); err != nil {
		return 0, err
	}
	n, err := s.up.Write(p)
	s.pos += int64(n)
	if err != nil {
		s.err = s.w.f.pathError("write", s.path, err)
		return n, s.err
	}
	return n, nil
}

func (s *recoverableStream) usable(op string) error {
	if s.closed {
		return vfs.NewPathError(op, s.path, fs.ErrClosed)
	}
	return s.err
}

// Pos is the number of bytes written to the file so far.
func (s *recoverableStream) Pos() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pos
}

// Persist makes every byte written durable and returns its token.
func (s *recoverableStream) Persist(ctx context.Context) (vfs.ResumeRecoverable, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable("persist"); err != nil {
		return nil, err
	}
	st, err := s.up.Persist(ctx)
	if err != nil {
		s.err = s.w.f.pathError("persist", s.path, err)
		return nil, s.err
	}
	return s.w.seal(false, tokenBody{Key: s.key, ID: s.id, Pos: s.pos, State: st}), nil
}

// CloseForCommit makes every byte durable and returns the committer.
func (s *recoverableStream) CloseForCommit(ctx context.Context) (vfs.Committer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable("close for commit"); err != nil {
		return nil, err
	}
	s.closed = true
	st, err := s.up.CloseForCommit(ctx)
	if err != nil {
		return nil, s.w.f.pathError("close for commit", s.path, err)
	}
	b := tokenBody{Key: s.key, ID: s.id, Commit: s.cid, Pos: s.pos, State: st}
	if ci, ok := s.up.(CommitIdentifier); ok {
		b.Commit = ci.CommitID()
	}
	return &committer{w: s.w, path: s.path, body: b, token: s.w.seal(true, b)}, nil
}

// Close gives the stream up; what was persisted stays recoverable.
func (s *recoverableStream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if err := s.up.Close(); err != nil {
		return s.w.f.pathError("close", s.path, err)
	}
	return nil
}

// committer publishes a stream closed for commit.
type committer struct {
	w     *recoverableWriter
	path  vfs.Path
	body  tokenBody
	token []byte
}

// Commit publishes the file once. A commit is recognised only by proof: the
// target carrying the stream's commit id (WriteIDMetadata, fresh for each
// incarnation of the stream) at the stream's size. When the target holds
// that, Commit (a repeated one, or CommitAfterRecovery) writes nothing and
// deletes what is left of the stream's temporary objects. Otherwise the store
// publishes the object from what the stream keeps (its multipart upload,
// staged blocks or pieces), which publishing consumes: when that is gone, the
// commit happened before and the target was replaced or deleted since, or the
// state was removed, and Commit writes nothing and fails with an error
// wrapping fs.ErrNotExist. A failed answer is taken for a success when the
// target then holds the proof. The stream's temporary objects are deleted
// after.
func (c *committer) Commit(ctx context.Context) error {
	f, k, cid := c.w.f, c.body.Key, c.body.commitID()
	attrs, err := f.attributes(ctx, k)
	switch {
	case err == nil && published(attrs, cid, c.body.Pos):
		return f.pathError("commit", c.path, f.deleteTemps(ctx, k, c.body.ID))
	case err != nil && !f.isNotFound(err):
		return f.pathError("commit", c.path, err)
	case err != nil:
		attrs = nil
	}
	if ps, ok := c.w.rs.(piecesStore); ok {
		err = ps.commit(ctx, k, c.body, attrs)
	} else {
		err = c.w.rs.CommitRecoverable(ctx, k, cid, c.body.State)
	}
	if err != nil && (ctx.Err() != nil || !f.published(ctx, k, cid, c.body.Pos)) {
		return f.pathError("commit", c.path, err)
	}
	return f.pathError("commit", c.path, f.deleteTemps(ctx, k, c.body.ID))
}

// published reports whether attrs are those of the object a commit with
// commit id cid of size bytes published.
func published(attrs *blob.Attributes, cid string, size int64) bool {
	return attrs.Metadata[WriteIDMetadata] == cid && attrs.Size == size
}

// published reports whether the object k exists and is the one a commit with
// commit id cid of size bytes published.
func (f *FileSystem) published(ctx context.Context, k, cid string, size int64) bool {
	attrs, err := f.attributes(ctx, k)
	return err == nil && published(attrs, cid, size)
}

// CommitAfterRecovery is Commit: nil when the commit already happened (and
// the target still holds what it published).
func (c *committer) CommitAfterRecovery(ctx context.Context) error { return c.Commit(ctx) }

// Recoverable is the token RecoverForCommit turns back into this committer.
func (c *committer) Recoverable() vfs.CommitRecoverable { return c.token }

// deleteTemps deletes every temporary object of the stream with write id id
// writing key, of every incarnation: one listing and one batch delete, and
// a second one for a commit marker, which goes last (see piecesStore.commit).
func (f *FileSystem) deleteTemps(ctx context.Context, key, id string) error {
	var keys, markers []string
	err := f.listPages(ctx, recoverableTempPrefix(key, id), "", func(objs []*blob.ListObject) error {
		for _, o := range objs {
			if isCommitMarker(key, id, o.Key) {
				markers = append(markers, o.Key)
			} else {
				keys = append(keys, o.Key)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := f.deleteKeys(ctx, keys); err != nil {
		return err
	}
	return f.deleteKeys(ctx, markers)
}

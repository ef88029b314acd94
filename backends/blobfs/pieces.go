package blobfs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"strconv"
	"strings"

	"gocloud.dev/blob"
)

// piecesStore is the RecoverableStore of a Store that has none: a stream is
// written as temporary objects (RecoverableTempKey), one per persisted piece,
// each streamed through the bucket's writer as it is written (memory bounded
// as for Create); Persist closes the piece being written. Commit
// concatenates the pieces into the target: server-side in rounds when the
// Store is a Composer, else by a streamed copy through this process (one
// read of every piece, one upload of the target).
type piecesStore struct{ f *FileSystem }

// piece is one temporary object of a stream: RecoverableTempKey(key, id, E,
// N), Z bytes long, at version V (a GCS generation; "" when the store does
// not tell it).
type piece struct {
	E string `json:"e"`
	N int    `json:"n"`
	Z int64  `json:"z"`
	V string `json:"v,omitempty"`
}

// piecesState is the state of a stream written as pieces.
type piecesState struct {
	Pieces []piece `json:"p"`
}

func (piecesStore) RecoverableKind() string { return "pieces/2" }

func (s piecesStore) OpenRecoverable(ctx context.Context, key string, o RecoverableOptions) (RecoverableUpload, error) {
	return &piecesUpload{f: s.f, ctx: ctx, key: key, o: o}, nil
}

// ResumeRecoverable checks, with one listing of the stream's temporary
// objects, that every piece of state is there at its size.
func (s piecesStore) ResumeRecoverable(ctx context.Context, key string, state []byte, o RecoverableOptions) (RecoverableUpload, error) {
	st, err := decodePieces(state)
	if err != nil {
		return nil, err
	}
	if err := s.f.checkPieces(ctx, key, o.WriteID, st.Pieces); err != nil {
		return nil, err
	}
	next := 0
	if len(st.Pieces) > 0 {
		next = st.Pieces[len(st.Pieces)-1].N + 1
	}
	return &piecesUpload{f: s.f, ctx: ctx, key: key, o: o, pieces: st.Pieces, next: next}, nil
}

func decodePieces(state []byte) (piecesState, error) {
	var st piecesState
	if err := json.Unmarshal(state, &st); err != nil {
		return st, fmt.Errorf("%w: recoverable state: %v", fs.ErrInvalid, err)
	}
	for _, p := range st.Pieces {
		if p.Z < 0 || p.N < 0 || p.E == "" {
			return st, fmt.Errorf("%w: recoverable state holds a piece %+v", fs.ErrInvalid, p)
		}
	}
	return st, nil
}

// checkPieces fails with fs.ErrNotExist unless every piece is there at its
// size.
func (f *FileSystem) checkPieces(ctx context.Context, key, id string, pieces []piece) error {
	if len(pieces) == 0 {
		return nil
	}
	sizes := map[string]int64{}
	err := f.listPages(ctx, recoverableTempPrefix(key, id), "", func(objs []*blob.ListObject) error {
		for _, o := range objs {
			sizes[o.Key] = o.Size
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range pieces {
		k := RecoverableTempKey(key, id, p.E, p.N)
		if z, ok := sizes[k]; !ok || z != p.Z {
			return fmt.Errorf("%w: temporary object %q of the stream is gone or changed (want %d bytes); was it cleaned up or committed already?", fs.ErrNotExist, k, p.Z)
		}
	}
	return nil
}

// CommitRecoverable is not used: blobfs commits pieces with commit, which
// proves the pieces are there first.
func (s piecesStore) CommitRecoverable(ctx context.Context, key, id string, state []byte) error {
	return fmt.Errorf("blobfs: the pieces of %q are committed by their committer", key)
}

// commit concatenates the pieces of b into key, with b's commit id in its
// metadata. The pieces are the stream's state until the commit's decision,
// and never outlive it:
//
//   - Before it writes the target, the commit writes a marker, a temporary
//     object of the stream (commitMarker) that records the version of the
//     object at key then (target, nil for none); the marker is deleted after
//     every piece.
//   - A commit that finds its marker (a commit that began before, then died
//     or failed) and the target at that version with every piece still
//     publishes; one that finds the target at another version (published,
//     then replaced or deleted, or replaced meanwhile) or a piece gone (the
//     pieces are deleted only after publishing) deletes the pieces and
//     writes nothing (fs.ErrNotExist). One case is left that no store
//     without an atomic publish-and-consume can tell: a target that did not
//     exist when the commit began, published, then deleted, by a commit
//     that died after publishing and before its first delete landed.
//   - Without a marker, every piece must be there at its size (one listing)
//     and, where the store tells versions, at the version it was written:
//     otherwise the commit happened before, or the state was removed, and
//     nothing is written (fs.ErrNotExist). Pieces put back after a commit
//     are not at their versions on GCS; on a store that tells no versions
//     only the marker tells.
func (s piecesStore) commit(ctx context.Context, key string, b tokenBody, target *blob.Attributes) error {
	f := s.f
	st, err := decodePieces(b.State)
	if err != nil {
		return err
	}
	if len(st.Pieces) == 0 {
		return fmt.Errorf("%w: the commit state of %q names no piece (every stream closed for commit has one, an empty one too)", fs.ErrNotExist, key)
	}
	sizes, versions, err := f.tempSizes(ctx, key, b.ID)
	if err != nil {
		return err
	}
	marker := commitMarker(key, b.ID, b.commitID())
	now := targetVersion(f, target)
	if _, ok := sizes[marker]; ok {
		attrs, err := f.attributes(ctx, marker)
		if err != nil {
			return fmt.Errorf("read the commit marker %q: %w", marker, err)
		}
		why := ""
		switch {
		case attrs.Metadata[commitPriorMetadata] != now:
			why = fmt.Sprintf("%q changed since this stream's commit began (%s then, %s now: it was published and then replaced or deleted, or replaced meanwhile)", key, attrs.Metadata[commitPriorMetadata], now)
		case !allThere(sizes, key, b.ID, st.Pieces):
			why = fmt.Sprintf("the stream's pieces were being deleted, which happens only once %q was published (and deleted since)", key)
		}
		if why != "" {
			if err := f.deleteTemps(ctx, key, b.ID); err != nil {
				return err
			}
			return fmt.Errorf("%w: %s; nothing written, the stream's pieces deleted", fs.ErrNotExist, why)
		}
	}
	srcs := make([]string, len(st.Pieces))
	pinned := make([]string, len(st.Pieces))
	for i, p := range st.Pieces {
		srcs[i], pinned[i] = RecoverableTempKey(key, b.ID, p.E, p.N), p.V
		z, ok := sizes[srcs[i]]
		if v := versions[srcs[i]]; !ok || z != p.Z || p.V != "" && v != "" && v != p.V {
			return fmt.Errorf("%w: temporary object %q of the stream is gone or changed (want %d bytes, version %q): the stream was committed before, or its state removed; nothing written", fs.ErrNotExist, srcs[i], p.Z, p.V)
		}
	}
	if _, ok := sizes[marker]; !ok {
		md := map[string]string{WriteIDMetadata: b.commitID(), RecoverableMetadata: key, commitPriorMetadata: now}
		w, err := f.newWriterWith(ctx, marker, false, md)
		if err == nil {
			err = w.Close()
		}
		if err != nil {
			return fmt.Errorf("write the commit marker %q: %w", marker, err)
		}
	}
	md := map[string]string{WriteIDMetadata: b.commitID()}
	if c, ok := f.opts.Store.(Composer); ok {
		return f.composeRounds(ctx, c, key, b.ID, srcs, pinned, UploadOptions{ContentType: contentTypeOf(key), Metadata: md})
	}
	return f.concat(ctx, key, srcs, pinned, md)
}

// allThere reports whether every piece of a stream is among the listed
// sizes, at its size.
func allThere(sizes map[string]int64, key, id string, pieces []piece) bool {
	for _, p := range pieces {
		if z, ok := sizes[RecoverableTempKey(key, id, p.E, p.N)]; !ok || z != p.Z {
			return false
		}
	}
	return true
}

// commitPriorMetadata is the metadata key whose value, on a commit marker,
// describes the object at the target when the commit began (targetVersion).
const commitPriorMetadata = "vfskit-commit-prior"

// commitMarker is the key of the marker of the commit with commit id cid of
// the stream id writing key: a temporary object whose epoch is "m" and 7
// digits of cid (piece epochs are hex digits only).
func commitMarker(key, id, cid string) string {
	return RecoverableTempKey(key, id, "m"+cid[:min(7, len(cid))], 0)
}

// isCommitMarker reports whether the temporary object k of the stream id
// writing key is a commit marker.
func isCommitMarker(key, id, k string) bool {
	return strings.HasPrefix(strings.TrimPrefix(k, recoverableTempPrefix(key, id)), "m")
}

// targetVersion describes the version of the object attrs are of ("none"
// for nil), as a commit marker records it.
func targetVersion(f *FileSystem, attrs *blob.Attributes) string {
	if attrs == nil {
		return "none"
	}
	v := f.headVersion(attrs)
	return fmt.Sprintf("%s/%d/%d", v.id, v.size, v.mod.UnixNano())
}

// tempSizes lists the temporary objects of the stream id writing key: their
// sizes and, where the Store is a ListVersioner, versions by key.
func (f *FileSystem) tempSizes(ctx context.Context, key, id string) (sizes map[string]int64, versions map[string]string, err error) {
	sizes, versions = map[string]int64{}, map[string]string{}
	lv, _ := f.opts.Store.(ListVersioner)
	err = f.listPages(ctx, recoverableTempPrefix(key, id), "", func(objs []*blob.ListObject) error {
		for _, o := range objs {
			sizes[o.Key] = o.Size
			if lv != nil {
				versions[o.Key] = lv.ListVersion(o)
			}
		}
		return nil
	})
	return sizes, versions, err
}

// composeRounds composes srcs into key: while there are more than one
// Compose takes, groups of them are composed into intermediate temporary
// objects (deleted with the stream's other temporary objects after commit).
func (f *FileSystem) composeRounds(ctx context.Context, c Composer, key, id string, srcs, versions []string, o UploadOptions) error {
	limit := max(c.MaxComposeSources(), 2)
	tmp := UploadOptions{ContentType: o.ContentType, Metadata: map[string]string{WriteIDMetadata: id, RecoverableMetadata: key}}
	for round := 0; len(srcs) > limit; round++ {
		var next, nextV []string
		for i := 0; i < len(srcs); i += limit {
			group, gv := srcs[i:min(i+limit, len(srcs))], versions[i:min(i+limit, len(srcs))]
			if len(group) == 1 {
				next, nextV = append(next, group[0]), append(nextV, gv[0])
				continue
			}
			dst := RecoverableTempKey(key, id, "c"+strconv.Itoa(round), len(next))
			if err := c.Compose(ctx, dst, group, gv, tmp); err != nil {
				return err
			}
			next, nextV = append(next, dst), append(nextV, "")
		}
		srcs, versions = next, nextV
	}
	return c.Compose(ctx, key, srcs, versions, o)
}

// concat streams the objects srcs, in order, into one upload of key, each
// read at its version (versions[i], any when "").
func (f *FileSystem) concat(ctx context.Context, key string, srcs, versions []string, md map[string]string) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := f.newWriterWith(wctx, key, false, md)
	if err != nil {
		return err
	}
	for i, k := range srcs {
		if err := f.copyInto(ctx, w, k, versions[i]); err != nil {
			cancel()
			_ = w.Close()
			return err
		}
	}
	return w.Close()
}

func (f *FileSystem) copyInto(ctx context.Context, w io.Writer, k, v string) error {
	r, err := f.rangeReaderIf(ctx, k, 0, -1, v)
	if err != nil {
		return fmt.Errorf("read temporary object %q: %w", k, err)
	}
	defer r.Close()
	if _, err := io.Copy(w, r); err != nil {
		return fmt.Errorf("copy temporary object %q: %w", k, err)
	}
	return nil
}

// CleanupRecoverable keeps everything: every piece of a state is a piece of
// the stream's later states too. Commit deletes them.
func (piecesStore) CleanupRecoverable(context.Context, string, []byte) error { return nil }

// piecesUpload writes a stream as pieces.
type piecesUpload struct {
	f      *FileSystem
	ctx    context.Context
	key    string
	o      RecoverableOptions
	pieces []piece
	next   int // the number of the next piece

	w      Upload        // the piece being written, nil before its first byte
	tell   func() string // w's version, once closed
	cancel context.CancelFunc
	n      int64 // bytes in w
}

func (u *piecesUpload) Write(p []byte) (int, error) {
	if u.w == nil && len(p) > 0 {
		if err := u.start(); err != nil {
			return 0, err
		}
	}
	if u.w == nil {
		return 0, nil
	}
	n, err := u.w.Write(p)
	u.n += int64(n)
	return n, err
}

// start starts the next piece.
func (u *piecesUpload) start() error {
	ctx, cancel := context.WithCancel(u.ctx)
	md := maps.Clone(u.o.Metadata)
	md[RecoverableMetadata] = u.key
	w, tell, err := u.f.newVersionedWriter(ctx, RecoverableTempKey(u.key, u.o.WriteID, u.o.Epoch, u.next), false, md)
	if err != nil {
		cancel()
		return err
	}
	u.w, u.tell, u.cancel, u.n = w, tell, cancel, 0
	return nil
}

// Persist publishes the piece being written.
func (u *piecesUpload) Persist(ctx context.Context) ([]byte, error) {
	if u.w != nil {
		w, cancel := u.w, u.cancel
		u.w = nil
		stop := context.AfterFunc(ctx, cancel)
		err := w.Close()
		stop()
		cancel()
		if err != nil {
			// The piece may be there all the same (a lost answer), and no
			// token will name it: remove it, as far as the store lets us.
			_ = u.f.deleteKeys(ctx, []string{RecoverableTempKey(u.key, u.o.WriteID, u.o.Epoch, u.next)})
			u.next++
			return nil, err
		}
		u.pieces = append(u.pieces, piece{E: u.o.Epoch, N: u.next, Z: u.n, V: u.tell()})
		u.next++
	}
	return json.Marshal(piecesState{Pieces: u.pieces})
}

// CloseForCommit publishes the piece being written. An empty stream gets an
// empty piece: the commit consumes the pieces, so that a stream whose pieces
// are gone is known to be committed (or removed), an empty one too.
func (u *piecesUpload) CloseForCommit(ctx context.Context) ([]byte, error) {
	if u.w == nil && len(u.pieces) == 0 {
		if err := u.start(); err != nil {
			return nil, err
		}
	}
	return u.Persist(ctx)
}

// Close discards the piece being written: its context ends first, so it
// publishes nothing.
func (u *piecesUpload) Close() error {
	if u.w != nil {
		u.cancel()
		_ = u.w.Close()
		u.w = nil
	}
	return nil
}

package blobfs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"strconv"

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
// N), Z bytes long.
type piece struct {
	E string `json:"e"`
	N int    `json:"n"`
	Z int64  `json:"z"`
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
		if p.Z <= 0 || p.N < 0 || p.E == "" {
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

// CommitRecoverable concatenates the pieces into key.
func (s piecesStore) CommitRecoverable(ctx context.Context, key, id string, state []byte) error {
	st, err := decodePieces(state)
	if err != nil {
		return err
	}
	srcs := make([]string, len(st.Pieces))
	for i, p := range st.Pieces {
		srcs[i] = RecoverableTempKey(key, id, p.E, p.N)
	}
	md := map[string]string{WriteIDMetadata: id}
	if c, ok := s.f.opts.Store.(Composer); ok && len(srcs) > 0 {
		return s.f.composeRounds(ctx, c, key, id, srcs, UploadOptions{ContentType: contentType, Metadata: md})
	}
	return s.f.concat(ctx, key, srcs, md)
}

// composeRounds composes srcs into key: while there are more than one
// Compose takes, groups of them are composed into intermediate temporary
// objects (deleted with the stream's other temporary objects after commit).
func (f *FileSystem) composeRounds(ctx context.Context, c Composer, key, id string, srcs []string, o UploadOptions) error {
	limit := max(c.MaxComposeSources(), 2)
	tmp := UploadOptions{ContentType: o.ContentType, Metadata: map[string]string{WriteIDMetadata: id, RecoverableMetadata: key}}
	for round := 0; len(srcs) > limit; round++ {
		var next []string
		for i := 0; i < len(srcs); i += limit {
			group := srcs[i:min(i+limit, len(srcs))]
			if len(group) == 1 {
				next = append(next, group[0])
				continue
			}
			dst := RecoverableTempKey(key, id, "c"+strconv.Itoa(round), len(next))
			if err := c.Compose(ctx, dst, group, tmp); err != nil {
				return err
			}
			next = append(next, dst)
		}
		srcs = next
	}
	return c.Compose(ctx, key, srcs, o)
}

// concat streams the objects srcs, in order, into one upload of key.
func (f *FileSystem) concat(ctx context.Context, key string, srcs []string, md map[string]string) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := f.newWriterWith(wctx, key, false, md)
	if err != nil {
		return err
	}
	for _, k := range srcs {
		if err := f.copyInto(ctx, w, k); err != nil {
			cancel()
			_ = w.Close()
			return err
		}
	}
	return w.Close()
}

func (f *FileSystem) copyInto(ctx context.Context, w io.Writer, k string) error {
	r, err := f.rangeReader(ctx, k, 0, -1)
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

	w      Upload // the piece being written, nil before its first byte
	cancel context.CancelFunc
	n      int64 // bytes in w
}

func (u *piecesUpload) Write(p []byte) (int, error) {
	if u.w == nil && len(p) > 0 {
		ctx, cancel := context.WithCancel(u.ctx)
		md := maps.Clone(u.o.Metadata)
		md[RecoverableMetadata] = u.key
		w, err := u.f.newWriterWith(ctx, RecoverableTempKey(u.key, u.o.WriteID, u.o.Epoch, u.next), false, md)
		if err != nil {
			cancel()
			return 0, err
		}
		u.w, u.cancel, u.n = w, cancel, 0
	}
	if u.w == nil {
		return 0, nil
	}
	n, err := u.w.Write(p)
	u.n += int64(n)
	return n, err
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
		u.pieces = append(u.pieces, piece{E: u.o.Epoch, N: u.next, Z: u.n})
		u.next++
	}
	return json.Marshal(piecesState{Pieces: u.pieces})
}

func (u *piecesUpload) CloseForCommit(ctx context.Context) ([]byte, error) { return u.Persist(ctx) }

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

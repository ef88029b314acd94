package aferofs

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/vfs"
)

// InProgressPrefix starts the name of the in-progress file of a recoverable
// stream (see RecoverableWriter): the prefix, 16 hex digits of a random write
// id, 8 hex digits of a check over the id and the rest of the name, and "-"
// and the target's name (left out when longer than 200 bytes), such as
// ".vfskit-inprogress-3f9a0c1d2e4b5a690c1ffe42-part-0". Only names of exactly
// that form (IsInProgressName) are in-progress files, which List (and so
// vfs.Walk, cp -r and mv) leaves out; any other name,
// ".vfskit-inprogress-notes.txt" included, is a user's file like any other. It
// differs from the names of Create's temporary files, so CleanTemp never
// removes an in-progress file: a token may still need it however old it is.
// One left by a stream that was given up and will never be recovered is
// removed with Delete, by its full name or with its directory.
const InProgressPrefix = ".vfskit-inprogress-"

// inProgressName returns the in-progress name of write id id (16 hex digits)
// followed by rest ("" or "-" and the target's name).
func inProgressName(id, rest string) string {
	sum := sha256.Sum256([]byte("vfskit in-progress file " + id + rest))
	return InProgressPrefix + id + hex.EncodeToString(sum[:tempCheckLen/2]) + rest
}

// IsInProgressName reports whether name, a directory entry's name, is the
// name of a recoverable stream's in-progress file: InProgressPrefix, a write
// id and its check in lowercase hex, then nothing or "-" and the target's name
// (see InProgressPrefix). List leaves such names out.
func IsInProgressName(name string) bool {
	rest, ok := strings.CutPrefix(name, InProgressPrefix)
	n := tempIDLen + tempCheckLen
	if !ok || len(rest) < n || len(rest) > n && rest[n] != '-' {
		return false
	}
	for _, c := range []byte(rest[:n]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return name == inProgressName(rest[:tempIDLen], rest[n:])
}

// Kinds of the sealed tokens of the engine's recoverable writer.
const (
	resumeKind = "aferofs-resume/2"
	commitKind = "aferofs-commit/2"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var _ vfs.RecoverableWriterFS = (*FileSystem)(nil)

// RecoverableWriter returns the engine's vfs.RecoverableWriter, Flink's
// LocalRecoverableWriter:
//
//   - Open creates a hidden in-progress file next to the target (named
//     InProgressPrefix, a random write id and the target's name), making the
//     target's missing parent directories.
//   - Persist flushes and fsyncs the in-progress file (and, the first time, its
//     directory, with Options.Durable) and returns a token that names it, with
//     the length and CRC-32C of the bytes persisted.
//   - Recover checks that the in-progress file's first bytes are exactly the
//     persisted ones (length and CRC-32C) and copies them to a new in-progress
//     file of its own (the old one stays for the stream's other tokens): the
//     commit of another incarnation of the stream never moves the file a
//     recovered stream writes. A commit deletes the in-progress files of the
//     incarnations its stream was recovered from (the tokens name them).
//   - Commit renames the in-progress file over the target (replacing a file
//     there atomically) and fsyncs the directory, with Options.Durable.
//   - CommitAfterRecovery, like a repeated Commit, commits when the
//     in-progress file is still there, and returns nil when it is gone and
//     the target holds exactly the committed bytes (the length and CRC-32C in
//     the token); otherwise it fails with an error wrapping fs.ErrNotExist,
//     leaving the target alone. Committers of one token racing (in one
//     process or several) publish it once: the one whose rename finds the
//     in-progress file gone checks the target as after a recovery.
//   - CleanupRecoverableState checks the token and removes nothing: the
//     in-progress file is shared by every token of the stream and by its
//     committer, and Commit moves it away.
//
// Close without commit removes the in-progress file of a stream that never
// handed out a token, and keeps it otherwise. Tokens carry the file system's
// URI (scheme://authority/), so a token of another file system is refused with
// fs.ErrInvalid. It works on any afero.Fs whose files can be truncated.
func (f *FileSystem) RecoverableWriter() (vfs.RecoverableWriter, error) {
	return recoverableWriter{f}, nil
}

type recoverableWriter struct{ f *FileSystem }

// state is what a token says about a stream.
type state struct {
	target vfs.Path // qualified
	part   string   // base name of the in-progress file
	length int64
	crc    uint32
	// lineage are the in-progress files (base names) of the incarnations
	// this one was recovered from, oldest first: its commit deletes them.
	lineage []string
}

func (s state) marshal(kind, owner string) []byte {
	b := binary.AppendUvarint(nil, uint64(len(s.target.Path())))
	b = append(b, s.target.Path()...)
	b = binary.AppendUvarint(b, uint64(len(s.part)))
	b = append(b, s.part...)
	b = binary.AppendUvarint(b, uint64(s.length))
	b = binary.BigEndian.AppendUint32(b, s.crc)
	if len(s.lineage) > 0 {
		b = binary.AppendUvarint(b, uint64(len(s.lineage)))
		for _, l := range s.lineage {
			b = binary.AppendUvarint(b, uint64(len(l)))
			b = append(b, l...)
		}
	}
	return vfs.SealToken(kind, owner, b)
}

// unmarshal opens a token of kind; every defect wraps fs.ErrInvalid.
func (w recoverableWriter) unmarshal(op, kind string, tok []byte) (state, error) {
	payload, err := vfs.OpenToken(kind, w.f.root.String(), tok)
	if err != nil {
		return state{}, &fs.PathError{Op: op, Path: w.f.root.String(), Err: err}
	}
	bad := func(why string) (state, error) {
		return state{}, &fs.PathError{Op: op, Path: w.f.root.String(), Err: fmt.Errorf(
			"aferofs: recoverable token refused: %s: %w", why, fs.ErrInvalid)}
	}
	field := func() (string, bool) {
		n, k := binary.Uvarint(payload)
		if k <= 0 || n > uint64(len(payload)-k) {
			return "", false
		}
		s := string(payload[k : k+int(n)])
		payload = payload[k+int(n):]
		return s, true
	}
	target, ok1 := field()
	part, ok2 := field()
	length, k := binary.Uvarint(payload)
	if !ok1 || !ok2 || k <= 0 || len(payload) < k+4 || length > 1<<62 {
		return bad("malformed payload")
	}
	crc := binary.BigEndian.Uint32(payload[k:])
	payload = payload[k+4:]
	var lineage []string
	if len(payload) > 0 {
		n, k := binary.Uvarint(payload)
		if k <= 0 || n > uint64(len(payload)) {
			return bad("malformed lineage")
		}
		payload = payload[k:]
		for range n {
			l, ok := field()
			if !ok || !IsInProgressName(l) || strings.ContainsAny(l, `/\`) {
				return bad(fmt.Sprintf("lineage entry %q", l))
			}
			lineage = append(lineage, l)
		}
		if len(payload) != 0 {
			return bad("malformed lineage")
		}
	}
	if !IsInProgressName(part) || strings.ContainsAny(part, `/\`) {
		return bad(fmt.Sprintf("in-progress name %q", part))
	}
	p, err := vfs.NewPath(target)
	if err != nil || !p.IsAbsolute() || p.Scheme() != "" || p.Authority() != "" {
		return bad(fmt.Sprintf("target %q", target))
	}
	q, err := w.f.qualify(op, p)
	if err != nil || isRoot(q) {
		return bad(fmt.Sprintf("target %q", target))
	}
	return state{target: q, part: part, length: int64(length), crc: crc, lineage: lineage}, nil
}

// partName is the afero name of the in-progress file of s.
func (f *FileSystem) partName(s state) string {
	return filepath.Join(filepath.Dir(name(s.target)), s.part)
}

// Open starts a recoverable stream for the file at p.
func (w recoverableWriter) Open(ctx context.Context, p vfs.Path) (vfs.RecoverableOutputStream, error) {
	f := w.f
	q, err := f.begin(ctx, "open recoverable", p)
	if err != nil {
		return nil, err
	}
	if isRoot(q) {
		return nil, vfs.NewPathError("open recoverable", q, errorf(vfs.ErrIsDir, "cannot write a file over the root directory"))
	}
	s := state{target: q, part: newPartName(q)}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.prepareLocked(q, vfs.Overwrite); err != nil {
		return nil, err
	}
	file, err := f.afs.OpenFile(f.partName(s), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, pathError("open recoverable", q, err)
	}
	return newRecoverableStream(f, s, file, false), nil
}

// newPartName returns a fresh in-progress name for the target q.
func newPartName(q vfs.Path) string {
	var id [8]byte
	_, _ = rand.Read(id[:])
	rest := ""
	if base := q.Name(); len(base) <= 200 {
		rest = "-" + base
	}
	return inProgressName(hex.EncodeToString(id[:]), rest)
}

func newRecoverableStream(f *FileSystem, s state, file afero.File, recovered bool) *recoverableStream {
	r := &recoverableStream{f: f, s: s, file: file, tokens: recovered, dirSynced: recovered}
	r.w = file
	if f.opts.BufferSize > 0 {
		r.buf = bufio.NewWriterSize(file, f.opts.BufferSize)
		r.w = r.buf
	}
	return r
}

// Recover continues the stream of a ResumeRecoverable at exactly the bytes
// persisted then.
func (w recoverableWriter) Recover(ctx context.Context, tok vfs.ResumeRecoverable) (vfs.RecoverableOutputStream, error) {
	f := w.f
	s, err := w.unmarshal("recover", resumeKind, tok)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, vfs.NewPathError("recover", s.target, err)
	}
	old, err := f.afs.OpenFile(f.partName(s), os.O_RDONLY, 0)
	if err != nil {
		return nil, vfs.NewPathError("recover", s.target, fmt.Errorf("in-progress file %s: %w", s.part, notExist(err)))
	}
	defer old.Close()
	if err := checkPrefix(old, s); err != nil {
		return nil, vfs.NewPathError("recover", s.target, err)
	}
	// The recovered stream is an incarnation of its own, with an in-progress
	// file of its own holding the persisted bytes: committing another
	// incarnation of the stream (its file is the old one) never moves the
	// file this one writes, and this one's commit deletes the old one.
	n := s
	n.part, n.lineage = newPartName(s.target), append(slices.Clone(s.lineage), s.part)
	f.mu.Lock()
	file, err := f.afs.OpenFile(f.partName(n), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	f.mu.Unlock()
	if err != nil {
		return nil, pathError("recover", s.target, err)
	}
	if _, err := io.Copy(file, io.NewSectionReader(old, 0, s.length)); err != nil {
		_ = file.Close()
		_ = f.afs.Remove(f.partName(n))
		return nil, pathError("recover", s.target, err)
	}
	return newRecoverableStream(f, n, file, false), nil
}

// checkPrefix checks that the first s.length bytes of file are the ones s
// describes (their CRC-32C).
func checkPrefix(file afero.File, s state) error {
	fi, err := file.Stat()
	if err != nil {
		return classify(stripPath(err))
	}
	if fi.Size() < s.length {
		return fmt.Errorf("in-progress file %s holds %d bytes, fewer than the %d persisted: %w", s.part, fi.Size(), s.length, io.ErrUnexpectedEOF)
	}
	h := crc32.New(castagnoli)
	if _, err := io.Copy(h, io.NewSectionReader(file, 0, s.length)); err != nil {
		return classify(stripPath(err))
	}
	if h.Sum32() != s.crc {
		return fmt.Errorf("in-progress file %s does not hold the %d bytes persisted (CRC-32C %08x, expected %08x): %w", s.part, s.length, h.Sum32(), s.crc, fs.ErrInvalid)
	}
	return nil
}

// RecoverForCommit returns the committer of a CommitRecoverable.
func (w recoverableWriter) RecoverForCommit(_ context.Context, tok vfs.CommitRecoverable) (vfs.Committer, error) {
	s, err := w.unmarshal("recover for commit", commitKind, tok)
	if err != nil {
		return nil, err
	}
	return &committer{f: w.f, s: s}, nil
}

// CleanupRecoverableState checks tok and removes nothing (see
// FileSystem.RecoverableWriter).
func (w recoverableWriter) CleanupRecoverableState(_ context.Context, tok vfs.ResumeRecoverable) error {
	_, err := w.unmarshal("cleanup recoverable", resumeKind, tok)
	return err
}

// recoverableStream writes the in-progress file of a recoverable stream.
type recoverableStream struct {
	f    *FileSystem
	s    state // s.length and s.crc: of every byte written so far
	file afero.File
	buf  *bufio.Writer // nil when unbuffered
	w    io.Writer     // buf or file
	// tokens says that a token names the in-progress file (Persist was
	// called, or the stream was recovered), so Close keeps it.
	tokens    bool
	dirSynced bool // the in-progress file's name is durable
	err       error
	closed    bool
}

func (r *recoverableStream) usable(op string) error {
	switch {
	case r.closed:
		return vfs.NewPathError(op, r.s.target, fs.ErrClosed)
	case r.err != nil:
		return r.err
	}
	return nil
}

// Write appends b. After a failed Write the stream is broken: what was
// persisted before stays recoverable.
func (r *recoverableStream) Write(b []byte) (int, error) {
	if err := r.usable("write"); err != nil {
		return 0, err
	}
	n, err := r.w.Write(b)
	r.s.crc = crc32.Update(r.s.crc, castagnoli, b[:n])
	r.s.length += int64(n)
	if err != nil {
		r.err = pathError("write", r.s.target, err)
		return n, r.err
	}
	return n, nil
}

// Pos is the number of bytes of the file written so far.
func (r *recoverableStream) Pos() int64 { return r.s.length }

// sync flushes and fsyncs the in-progress file (and its directory once).
func (r *recoverableStream) sync(ctx context.Context, op string) error {
	if err := r.usable(op); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return vfs.NewPathError(op, r.s.target, err)
	}
	if r.buf != nil {
		if err := r.buf.Flush(); err != nil {
			r.err = pathError(op, r.s.target, err)
			return r.err
		}
	}
	if err := r.file.Sync(); err != nil {
		r.err = pathError(op, r.s.target, err)
		return r.err
	}
	if !r.dirSynced {
		if err := r.f.syncDir(filepath.Dir(name(r.s.target))); err != nil {
			return pathError(op, r.s.target, err)
		}
		r.dirSynced = true
	}
	return nil
}

// Persist makes every byte written so far durable and returns the token that
// Recover continues from.
func (r *recoverableStream) Persist(ctx context.Context) (vfs.ResumeRecoverable, error) {
	if err := r.sync(ctx, "persist"); err != nil {
		return nil, err
	}
	r.tokens = true
	return r.s.marshal(resumeKind, r.f.root.String()), nil
}

// CloseForCommit makes the bytes durable, closes the stream and returns the
// committer that publishes the file.
func (r *recoverableStream) CloseForCommit(ctx context.Context) (vfs.Committer, error) {
	if err := r.sync(ctx, "close for commit"); err != nil {
		return nil, err
	}
	r.closed = true
	if err := r.file.Close(); err != nil {
		return nil, pathError("close for commit", r.s.target, err)
	}
	return &committer{f: r.f, s: r.s}, nil
}

// Close gives the stream up without committing. The in-progress file stays
// when a token names it, and is removed otherwise.
func (r *recoverableStream) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.file.Close()
	if !r.tokens {
		r.f.mu.Lock()
		_ = r.f.afs.Remove(r.f.partName(r.s))
		r.f.mu.Unlock()
		return nil
	}
	if err != nil {
		return pathError("close", r.s.target, err)
	}
	return nil
}

// committer publishes the in-progress file of s at its target.
type committer struct {
	f *FileSystem
	s state
}

// Recoverable is the token RecoverForCommit turns back into c.
func (c *committer) Recoverable() vfs.CommitRecoverable {
	return c.s.marshal(commitKind, c.f.root.String())
}

// Commit renames the in-progress file over the target. Once it is gone, Commit
// is CommitAfterRecovery: nil when the target holds exactly the committed
// bytes, else an error wrapping fs.ErrNotExist, writing nothing.
func (c *committer) Commit(ctx context.Context) error { return c.commit(ctx, "commit", false) }

// CommitAfterRecovery commits, or returns nil when the commit already
// happened: the in-progress file is gone and the target holds exactly the
// committed bytes.
func (c *committer) CommitAfterRecovery(ctx context.Context) error {
	return c.commit(ctx, "commit after recovery", true)
}

func (c *committer) commit(ctx context.Context, op string, recovery bool) error {
	f, s := c.f, c.s
	if err := ctx.Err(); err != nil {
		return vfs.NewPathError(op, s.target, err)
	}
	part, target := f.partName(s), name(s.target)
	// The in-progress file is the stream's state: while it is there the
	// commit has not happened, and the rename that publishes it removes it.
	// Once it is gone (another committer of the token, in this process or
	// another, may rename it at any moment) only the target's bytes prove
	// the commit (committed): nothing is written again.
	f.mu.Lock()
	fi, err := f.afs.Stat(part)
	switch {
	case err != nil && errors.Is(notExist(err), fs.ErrNotExist):
		f.mu.Unlock()
		return c.committed(op)
	case err != nil:
		f.mu.Unlock()
		return vfs.NewPathError(op, s.target, fmt.Errorf("in-progress file %s: %w", s.part, notExist(err)))
	case fi.Size() != s.length && !recovery:
		f.mu.Unlock()
		return vfs.NewPathError(op, s.target, fmt.Errorf("in-progress file %s holds %d bytes, expected %d: %w", s.part, fi.Size(), s.length, fs.ErrInvalid))
	}
	if recovery {
		// A recovered committer checks what it publishes, and cuts bytes a
		// stream recovered from an earlier token may have added.
		if err := c.prepareRecovered(part); err != nil {
			f.mu.Unlock()
			if errors.Is(err, fs.ErrNotExist) {
				return c.committed(op)
			}
			return vfs.NewPathError(op, s.target, err)
		}
	}
	if tfi, err := f.afs.Stat(target); err == nil && tfi.IsDir() {
		f.mu.Unlock()
		return vfs.NewPathError(op, s.target, errorf(vfs.ErrIsDir, "a directory exists at the target"))
	}
	err = f.afs.Rename(part, target)
	f.mu.Unlock()
	if err != nil && errors.Is(notExist(err), fs.ErrNotExist) {
		// Another committer of the token renamed it first.
		return c.committed(op)
	}
	if err != nil {
		return pathError(op, s.target, err)
	}
	if err := f.syncDir(filepath.Dir(target)); err != nil {
		return pathError(op, s.target, err)
	}
	c.deleteLineage()
	return nil
}

// deleteLineage deletes the in-progress files of the incarnations the
// committed one was recovered from: no token of theirs is committed after
// this stream's commit (it would find the target not holding its bytes).
func (c *committer) deleteLineage() {
	dir := filepath.Dir(name(c.s.target))
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	for _, l := range c.s.lineage {
		_ = c.f.afs.Remove(filepath.Join(dir, l))
	}
}

// prepareRecovered checks that the in-progress file starts with the committed
// bytes and cuts it to them.
func (c *committer) prepareRecovered(part string) error {
	file, err := c.f.afs.OpenFile(part, os.O_RDWR, 0)
	if err != nil {
		return classify(stripPath(err))
	}
	err = checkPrefix(file, c.s)
	if err == nil {
		if fi, serr := file.Stat(); serr == nil && fi.Size() > c.s.length {
			if err = file.Truncate(c.s.length); err == nil {
				err = file.Sync()
			}
		}
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}

// committed returns nil when the target holds exactly the committed bytes.
func (c *committer) committed(op string) error {
	s := c.s
	file, err := c.f.afs.Open(name(s.target))
	if err == nil {
		var fi os.FileInfo
		if fi, err = file.Stat(); err == nil && !fi.IsDir() && fi.Size() == s.length {
			h := crc32.New(castagnoli)
			_, err = io.Copy(h, io.NewSectionReader(file, 0, s.length))
			if err == nil && h.Sum32() == s.crc {
				_ = file.Close()
				c.deleteLineage()
				return nil
			}
		}
		_ = file.Close()
	}
	return vfs.NewPathError(op, s.target, fmt.Errorf(
		"in-progress file %s is gone and the target does not hold the %d committed bytes (CRC-32C %08x): %w",
		s.part, s.length, s.crc, fs.ErrNotExist))
}

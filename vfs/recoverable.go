package vfs

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
)

// RecoverableWriter is Flink's RecoverableWriter: it writes files that survive
// the death of the writing process. A stream can be persisted mid-file
// (Persist returns a ResumeRecoverable token), a new process can continue it
// from the token (Recover), and a stream closed for commit (CloseForCommit,
// or RecoverForCommit from a CommitRecoverable token) publishes its file
// exactly once, even when the commit is repeated after a crash.
//
// Nothing is visible at the target path before Commit. Commit publishes the
// whole file atomically, replacing an existing one. Recover continues from
// exactly the bytes persisted at that token; bytes written after it are gone.
// A token that is cut short, altered, or of another file system is refused
// with an error wrapping fs.ErrInvalid.
type RecoverableWriter interface {
	// Open starts a new recoverable stream for the file at p.
	Open(ctx context.Context, p Path) (RecoverableOutputStream, error)
	// Recover continues the stream r was persisted from, at exactly the bytes
	// persisted then.
	Recover(ctx context.Context, r ResumeRecoverable) (RecoverableOutputStream, error)
	// RecoverForCommit returns the committer of a stream closed for commit.
	RecoverForCommit(ctx context.Context, r CommitRecoverable) (Committer, error)
	// CleanupRecoverableState removes what the store keeps for r alone (such
	// as a temporary object) once r will never be recovered. It never removes
	// what a later token of the same stream or a committed file needs.
	CleanupRecoverableState(ctx context.Context, r ResumeRecoverable) error
}

// RecoverableOutputStream writes a file through a RecoverableWriter. It is not
// safe for concurrent use.
type RecoverableOutputStream interface {
	io.Writer
	// Pos is the number of bytes written to the file so far.
	Pos() int64
	// Persist makes every byte written so far durable and returns the token
	// that Recover continues from.
	Persist(ctx context.Context) (ResumeRecoverable, error)
	// CloseForCommit closes the stream, makes its bytes durable and returns
	// the Committer that publishes the file.
	CloseForCommit(ctx context.Context) (Committer, error)
	// Close gives the stream up without committing; what was persisted stays
	// recoverable.
	Close() error
}

// Committer publishes the file of a stream closed for commit, once: a
// committed stream never writes its target again, whatever it held (nothing
// included), whoever wrote or deleted the target since, and whichever of its
// tokens is used to come back. A commit is recognised only by proof of what
// it published (the committed bytes' length and checksum, or the object's
// write id and size), never by the absence of something else: Commit and
// CommitAfterRecovery give one answer on every scheme.
//
//   - The commit has not happened: it publishes the file.
//   - It happened and the target holds what it published: nil, writing
//     nothing (a repeated Commit, as Flink's commitAfterRecovery).
//   - It happened and the target was replaced or deleted since, or the
//     stream's recoverable state was removed: an error wrapping
//     fs.ErrNotExist, writing nothing.
//
// A stream recovered from a token (Recover) is a stream of its own: its
// commit publishes its own bytes, even after another stream recovered from
// the same token, or the stream that persisted the token, committed.
type Committer interface {
	// Commit publishes the whole file atomically at its target path. Called
	// again after it succeeded, it is CommitAfterRecovery.
	Commit(ctx context.Context) error
	// CommitAfterRecovery is Commit for a committer recovered from a token:
	// nil when the commit already happened and the target still holds what
	// it published; an error wrapping fs.ErrNotExist, writing nothing, when
	// it happened and the target no longer holds it.
	CommitAfterRecovery(ctx context.Context) error
	// Recoverable is the token RecoverForCommit turns back into this Committer.
	Recoverable() CommitRecoverable
}

// ResumeRecoverable is the token of a persisted stream: opaque, versioned,
// checked, and valid in another process.
type ResumeRecoverable []byte

// CommitRecoverable is the token of a stream closed for commit: opaque,
// versioned, checked, and valid in another process.
type CommitRecoverable []byte

// RecoverableWriterFS is implemented by file systems that have a
// RecoverableWriter. NewRecoverableWriter uses it; layers forward it.
type RecoverableWriterFS interface {
	FileSystem
	// RecoverableWriter returns the file system's recoverable writer, or an
	// error wrapping errors.ErrUnsupported.
	RecoverableWriter() (RecoverableWriter, error)
}

// NewRecoverableWriter returns fsys's recoverable writer (Flink's
// FileSystem.createRecoverableWriter), or an error wrapping
// errors.ErrUnsupported where fsys has none.
func NewRecoverableWriter(fsys FileSystem) (RecoverableWriter, error) {
	if r, ok := fsys.(RecoverableWriterFS); ok {
		return r.RecoverableWriter()
	}
	return nil, fmt.Errorf("vfs: %s has no recoverable writer: %w", RedactURL(fsys.URI()), errors.ErrUnsupported)
}

// tokenMagic starts every sealed recoverable token.
const tokenMagic = "VFRW"

// tokenVersion is the version of the sealed token envelope.
const tokenVersion = 1

// SealToken wraps a writer's payload into a token: magic, envelope version,
// the writer's kind (such as "s3-multipart/2"), the identity of the file
// system it belongs to (such as its URI), the payload and a CRC-32C of all of
// it. OpenToken checks and unwraps it. Writers use these two so that every
// token is versioned, self-checking and tied to one file system.
func SealToken(kind, owner string, payload []byte) []byte {
	b := make([]byte, 0, len(tokenMagic)+1+3*binary.MaxVarintLen64+len(kind)+len(owner)+len(payload)+4)
	b = append(b, tokenMagic...)
	b = append(b, tokenVersion)
	b = binary.AppendUvarint(b, uint64(len(kind)))
	b = append(b, kind...)
	b = binary.AppendUvarint(b, uint64(len(owner)))
	b = append(b, owner...)
	b = binary.AppendUvarint(b, uint64(len(payload)))
	b = append(b, payload...)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// OpenToken checks a token SealToken made for kind and owner and returns its
// payload. A token that is cut short, altered, of another kind or of another
// owner fails with an error wrapping fs.ErrInvalid.
func OpenToken(kind, owner string, tok []byte) ([]byte, error) {
	bad := func(why string) error {
		return fmt.Errorf("vfs: recoverable token (%d bytes) refused: %s: %w", len(tok), why, fs.ErrInvalid)
	}
	if len(tok) < len(tokenMagic)+1+4 || string(tok[:len(tokenMagic)]) != tokenMagic {
		return nil, bad("not a vfskit token")
	}
	body, sum := tok[:len(tok)-4], binary.BigEndian.Uint32(tok[len(tok)-4:])
	if crc32.Checksum(body, crcTable) != sum {
		return nil, bad("checksum mismatch (cut short or altered)")
	}
	if body[len(tokenMagic)] != tokenVersion {
		return nil, bad(fmt.Sprintf("envelope version %d, expected %d", body[len(tokenMagic)], tokenVersion))
	}
	rest := body[len(tokenMagic)+1:]
	field := func() ([]byte, bool) {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) {
			return nil, false
		}
		f := rest[k : k+int(n)]
		rest = rest[k+int(n):]
		return f, true
	}
	gotKind, ok1 := field()
	gotOwner, ok2 := field()
	payload, ok3 := field()
	if !ok1 || !ok2 || !ok3 || len(rest) != 0 {
		return nil, bad("malformed envelope")
	}
	if string(gotKind) != kind {
		return nil, bad(fmt.Sprintf("a token of %q, expected %q", gotKind, kind))
	}
	if string(gotOwner) != owner {
		return nil, bad("a token of another file system")
	}
	return payload, nil
}

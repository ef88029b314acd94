package conformance_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/vfskit/vfskit/vfs"
)

// Breakages of vfs.RecoverableWriter, each wrapping memfs's healthy writer and
// breaking one rule of the Recoverable group.
const (
	// Persist also writes the bytes so far to the target.
	rwVisibleBeforeCommit = "recoverable-visible-before-commit"
	// Recover continues after the bytes the stream wrote after the token.
	rwRecoverKeepsLater = "recoverable-recover-keeps-later-bytes"
	// CommitAfterRecovery writes the committed bytes to the target again.
	rwCommitRewrites = "recoverable-commit-after-recovery-rewrites"
	// Persist keeps a copy of the bytes so far next to the target, for good.
	rwLeavesTemp = "recoverable-leaves-temporary-files"
	// CommitAfterRecovery of an empty stream puts an empty file at the
	// target again (a commit taken for undone because nothing matched).
	rwEmptyReput = "recoverable-empty-commit-reputs"
	// A stream recovered from a token persisted at 0 bytes commits nothing
	// and returns nil (its commit taken for its first incarnation's).
	rwZeroTokenIgnored = "recoverable-zero-byte-token-reuse-ignored"
	// A repeated Commit that finds the stream's state gone writes the
	// committed bytes again (pieces composed again over a newer file).
	rwRecomposes = "recoverable-repeated-commit-recomposes"
)

var recoverableBreakages = []breakage{
	{rwVisibleBeforeCommit, "Recoverable/InvisibleUntilCommit", brokenRW(rwVisibleBeforeCommit)},
	{rwRecoverKeepsLater, "Recoverable/RecoverFromToken", brokenRW(rwRecoverKeepsLater)},
	{rwCommitRewrites, "Recoverable/CommitAfterRecoveryNeverRewrites", brokenRW(rwCommitRewrites)},
	{rwLeavesTemp, "Recoverable/NoLeftovers", brokenRW(rwLeavesTemp)},
	{rwEmptyReput, "Recoverable/CommittedOnceByProof", brokenRW(rwEmptyReput)},
	{rwZeroTokenIgnored, "Recoverable/RecoveredStreamIsItsOwn", brokenRW(rwZeroTokenIgnored)},
	{rwRecomposes, "Recoverable/CommittedOnceByProof", brokenRW(rwRecomposes)},
}

func init() { breakages = append(breakages, recoverableBreakages...) }

func brokenRW(mode string) func(vfs.FileSystem) vfs.FileSystem {
	return func(f vfs.FileSystem) vfs.FileSystem {
		return &rwBroken{base: broken(f), mode: mode, persisted: map[string]rwSnapshot{}, committed: map[string]rwSnapshot{}}
	}
}

// rwBroken is a file system whose recoverable writer is broken as mode says. It
// remembers what was written at each token (across writers, as a store would).
type rwBroken struct {
	base
	mode      string
	mu        sync.Mutex
	persisted map[string]rwSnapshot // by resume token
	committed map[string]rwSnapshot // by commit token
	temps     int
}

// rwSnapshot is a stream at a token: its bytes then, and the stream itself.
type rwSnapshot struct {
	path vfs.Path
	data []byte
	s    *rwStream
}

func (f *rwBroken) RecoverableWriter() (vfs.RecoverableWriter, error) {
	w, err := vfs.NewRecoverableWriter(f.Inner)
	if err != nil {
		return nil, err
	}
	return &rwWriter{f: f, w: w}, nil
}

type rwWriter struct {
	f *rwBroken
	w vfs.RecoverableWriter
}

func (w *rwWriter) Open(ctx context.Context, p vfs.Path) (vfs.RecoverableOutputStream, error) {
	out, err := w.w.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	return &rwStream{f: w.f, out: out, path: p}, nil
}

func (w *rwWriter) Recover(ctx context.Context, tok vfs.ResumeRecoverable) (vfs.RecoverableOutputStream, error) {
	w.f.mu.Lock()
	snap, ok := w.f.persisted[string(tok)]
	w.f.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("broken writer: unknown token")
	}
	out, err := w.w.Recover(ctx, tok)
	if err != nil && w.f.mode == rwZeroTokenIgnored && len(snap.data) == 0 {
		// As a store that keeps nothing for a token at 0 bytes: a new stream.
		out, err = w.w.Open(ctx, snap.path)
	}
	if err != nil {
		return nil, err
	}
	s := &rwStream{f: w.f, out: out, path: snap.path, data: bytes.Clone(snap.data),
		ignored: w.f.mode == rwZeroTokenIgnored && len(snap.data) == 0}
	if w.f.mode == rwRecoverKeepsLater {
		if _, err := s.Write(snap.s.data[len(snap.data):]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (w *rwWriter) RecoverForCommit(ctx context.Context, tok vfs.CommitRecoverable) (vfs.Committer, error) {
	c, err := w.w.RecoverForCommit(ctx, tok)
	if err != nil {
		return nil, err
	}
	w.f.mu.Lock()
	snap := w.f.committed[string(tok)]
	w.f.mu.Unlock()
	return &rwCommitter{f: w.f, c: c, snap: snap}, nil
}

func (w *rwWriter) CleanupRecoverableState(ctx context.Context, tok vfs.ResumeRecoverable) error {
	return w.w.CleanupRecoverableState(ctx, tok)
}

type rwStream struct {
	f    *rwBroken
	out  vfs.RecoverableOutputStream
	path vfs.Path
	data []byte // every byte of the file so far
	// ignored makes the stream's commit do nothing (rwZeroTokenIgnored).
	ignored bool
}

func (s *rwStream) Write(b []byte) (int, error) {
	n, err := s.out.Write(b)
	s.data = append(s.data, b[:n]...)
	return n, err
}

func (s *rwStream) Pos() int64 { return s.out.Pos() }

func (s *rwStream) Persist(ctx context.Context) (vfs.ResumeRecoverable, error) {
	tok, err := s.out.Persist(ctx)
	if err != nil {
		return nil, err
	}
	f := s.f
	f.mu.Lock()
	f.persisted[string(tok)] = rwSnapshot{path: s.path, data: bytes.Clone(s.data), s: s}
	f.temps++
	n := f.temps
	f.mu.Unlock()
	switch f.mode {
	case rwVisibleBeforeCommit:
		err = vfs.WriteFile(ctx, f.Inner, s.path, s.data, vfs.Overwrite)
	case rwLeavesTemp:
		err = vfs.WriteFile(ctx, f.Inner, s.path.Parent().Join(fmt.Sprintf("_persisted-%d", n)), s.data, vfs.Overwrite)
	}
	return tok, err
}

func (s *rwStream) CloseForCommit(ctx context.Context) (vfs.Committer, error) {
	c, err := s.out.CloseForCommit(ctx)
	if err != nil {
		return nil, err
	}
	snap := rwSnapshot{path: s.path, data: bytes.Clone(s.data)}
	s.f.mu.Lock()
	s.f.committed[string(c.Recoverable())] = snap
	s.f.mu.Unlock()
	return &rwCommitter{f: s.f, c: c, snap: snap, ignored: s.ignored}, nil
}

func (s *rwStream) Close() error { return s.out.Close() }

type rwCommitter struct {
	f       *rwBroken
	c       vfs.Committer
	snap    rwSnapshot
	ignored bool
}

func (c *rwCommitter) Commit(ctx context.Context) error {
	if c.ignored {
		return nil
	}
	err := c.c.Commit(ctx)
	if c.f.mode == rwRecomposes && err != nil && !c.snap.path.IsZero() {
		return vfs.WriteFile(ctx, c.f.Inner, c.snap.path, c.snap.data, vfs.Overwrite)
	}
	return err
}

func (c *rwCommitter) CommitAfterRecovery(ctx context.Context) error {
	err := c.c.CommitAfterRecovery(ctx)
	if (c.f.mode == rwCommitRewrites || c.f.mode == rwEmptyReput && len(c.snap.data) == 0) && !c.snap.path.IsZero() {
		return vfs.WriteFile(ctx, c.f.Inner, c.snap.path, c.snap.data, vfs.Overwrite)
	}
	return err
}

func (c *rwCommitter) Recoverable() vfs.CommitRecoverable { return c.c.Recoverable() }

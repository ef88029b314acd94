package layer

import (
	"context"

	"github.com/vfskit/vfskit/vfs"
)

var _ vfs.RecoverableWriterFS = Base{}

// RecoverableWriter returns Inner's recoverable writer (vfs.RecoverableWriterFS),
// or an error wrapping errors.ErrUnsupported when Inner has none. A layer that
// changes what Create does (refuses, confines, counts or rewrites it) must
// override it too: the writer below goes around the layer. WrapRecoverable
// makes that short.
func (b Base) RecoverableWriter() (vfs.RecoverableWriter, error) {
	return vfs.NewRecoverableWriter(b.Inner)
}

// The operation names RecoverableHooks.Call sees: vfs.Op's.
const (
	OpRecoverableOpen    = string(vfs.OpRecoverableOpen)
	OpRecover            = string(vfs.OpRecover)
	OpRecoverForCommit   = string(vfs.OpRecoverForCommit)
	OpCleanupRecoverable = string(vfs.OpCleanupRecoverable)
	OpPersist            = string(vfs.OpPersist)
	OpCloseForCommit     = string(vfs.OpCloseForCommit)
	OpCommit             = string(vfs.OpCommit)
	OpCommitAfterRecover = string(vfs.OpCommitAfterRecover)
)

// RecoverableHooks say what a layer does around the calls of a recoverable
// writer; see WrapRecoverable. A nil field changes nothing.
type RecoverableHooks struct {
	// Path maps the path given to Open to the path below (a layer that
	// confines or renames paths); its error is Open's.
	Path func(op string, p vfs.Path) (vfs.Path, error)
	// Seal wraps a token of the writer below (resume says which kind) into
	// the layer's token, and Unseal unwraps it again, failing with an error
	// wrapping fs.ErrInvalid for a token the layer did not seal. A layer whose
	// streams must not be recovered through another (a subtree) sets both.
	Seal   func(resume bool, below []byte) []byte
	Unseal func(op string, resume bool, tok []byte) ([]byte, error)
	// Call runs each call that takes a context, one of the Op* names above:
	// it must call call (with ctx or a context derived from it) unless it
	// fails the operation, and return its error. p is the path given to Open
	// (before Path) for calls on a stream or committer it opened, and the zero
	// Path for calls that only have a token.
	Call func(ctx context.Context, op string, p vfs.Path, call func(context.Context) error) error
	// Write sees the outcome of each Write on a stream.
	Write func(p vfs.Path, n int, err error)
	// Done runs once when a stream from Open or Recover ends: at Close or
	// CloseForCommit, whatever their outcome. A stream that Open or Recover
	// failed to return never began.
	Done func(p vfs.Path)
}

// WrapRecoverable returns the recoverable writer of inner (the file system
// below a layer) with the layer's hooks h around its calls, its streams' and
// its committers'; an error wrapping errors.ErrUnsupported where inner has
// none.
func WrapRecoverable(inner vfs.FileSystem, h RecoverableHooks) (vfs.RecoverableWriter, error) {
	w, err := vfs.NewRecoverableWriter(inner)
	if err != nil {
		return nil, err
	}
	return &hookedWriter{w: w, h: h}, nil
}

type hookedWriter struct {
	w vfs.RecoverableWriter
	h RecoverableHooks
}

func (w *hookedWriter) call(ctx context.Context, op string, p vfs.Path, fn func(context.Context) error) error {
	if w.h.Call == nil {
		return fn(ctx)
	}
	return w.h.Call(ctx, op, p, fn)
}

func (w *hookedWriter) seal(resume bool, tok []byte) []byte {
	if w.h.Seal == nil || tok == nil {
		return tok
	}
	return w.h.Seal(resume, tok)
}

func (w *hookedWriter) unseal(op string, resume bool, tok []byte) ([]byte, error) {
	if w.h.Unseal == nil {
		return tok, nil
	}
	return w.h.Unseal(op, resume, tok)
}

func (w *hookedWriter) Open(ctx context.Context, p vfs.Path) (vfs.RecoverableOutputStream, error) {
	var out vfs.RecoverableOutputStream
	err := w.call(ctx, OpRecoverableOpen, p, func(ctx context.Context) error {
		below := p
		if w.h.Path != nil {
			var err error
			if below, err = w.h.Path("open recoverable", p); err != nil {
				return err
			}
		}
		var err error
		out, err = w.w.Open(ctx, below)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &hookedStream{w: w, out: out, p: p}, nil
}

func (w *hookedWriter) Recover(ctx context.Context, tok vfs.ResumeRecoverable) (vfs.RecoverableOutputStream, error) {
	var out vfs.RecoverableOutputStream
	err := w.call(ctx, OpRecover, vfs.Path{}, func(ctx context.Context) error {
		below, err := w.unseal("recover", true, tok)
		if err != nil {
			return err
		}
		out, err = w.w.Recover(ctx, below)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &hookedStream{w: w, out: out}, nil
}

func (w *hookedWriter) RecoverForCommit(ctx context.Context, tok vfs.CommitRecoverable) (vfs.Committer, error) {
	var c vfs.Committer
	err := w.call(ctx, OpRecoverForCommit, vfs.Path{}, func(ctx context.Context) error {
		below, err := w.unseal("recover for commit", false, tok)
		if err != nil {
			return err
		}
		c, err = w.w.RecoverForCommit(ctx, below)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &hookedCommitter{w: w, c: c}, nil
}

func (w *hookedWriter) CleanupRecoverableState(ctx context.Context, tok vfs.ResumeRecoverable) error {
	return w.call(ctx, OpCleanupRecoverable, vfs.Path{}, func(ctx context.Context) error {
		below, err := w.unseal("cleanup recoverable", true, tok)
		if err != nil {
			return err
		}
		return w.w.CleanupRecoverableState(ctx, below)
	})
}

type hookedStream struct {
	w    *hookedWriter
	out  vfs.RecoverableOutputStream
	p    vfs.Path
	done bool
}

func (s *hookedStream) end() {
	if !s.done {
		s.done = true
		if s.w.h.Done != nil {
			s.w.h.Done(s.p)
		}
	}
}

func (s *hookedStream) Write(b []byte) (int, error) {
	n, err := s.out.Write(b)
	if s.w.h.Write != nil {
		s.w.h.Write(s.p, n, err)
	}
	return n, err
}

func (s *hookedStream) Pos() int64 { return s.out.Pos() }

func (s *hookedStream) Persist(ctx context.Context) (vfs.ResumeRecoverable, error) {
	var tok vfs.ResumeRecoverable
	err := s.w.call(ctx, OpPersist, s.p, func(ctx context.Context) error {
		var err error
		tok, err = s.out.Persist(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.w.seal(true, tok), nil
}

func (s *hookedStream) CloseForCommit(ctx context.Context) (vfs.Committer, error) {
	var c vfs.Committer
	err := s.w.call(ctx, OpCloseForCommit, s.p, func(ctx context.Context) error {
		var err error
		c, err = s.out.CloseForCommit(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.end()
	return &hookedCommitter{w: s.w, c: c, p: s.p}, nil
}

func (s *hookedStream) Close() error {
	err := s.out.Close()
	s.end()
	return err
}

type hookedCommitter struct {
	w *hookedWriter
	c vfs.Committer
	p vfs.Path
}

func (c *hookedCommitter) Commit(ctx context.Context) error {
	return c.w.call(ctx, OpCommit, c.p, c.c.Commit)
}

func (c *hookedCommitter) CommitAfterRecovery(ctx context.Context) error {
	return c.w.call(ctx, OpCommitAfterRecover, c.p, c.c.CommitAfterRecovery)
}

func (c *hookedCommitter) Recoverable() vfs.CommitRecoverable {
	return c.w.seal(false, c.c.Recoverable())
}

package rwtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// Stream is one file written by WriteWithRecovery: what it should hold, the
// tokens it got, and how far it came.
type Stream struct {
	Path vfs.Path
	Want []byte
	// Resume are the resume tokens Persist returned, in order.
	Resume []vfs.ResumeRecoverable
	// Commit is the commit token, nil when CloseForCommit was not reached.
	Commit vfs.CommitRecoverable
	// Err is the first error (nil when the stream was committed).
	Err error
}

// WriteWithRecovery writes p through w the way a crashing job does: a piece,
// Persist, another piece, Persist, a third piece that is lost (Close), then
// Recover from the second token, a fourth piece, Persist, CloseForCommit and
// Commit. It stops at the first error (faults may cause them) and reports how
// far it came.
func WriteWithRecovery(ctx context.Context, w vfs.RecoverableWriter, p vfs.Path, seed, piece int) *Stream {
	a, b, c, d := Data(seed, piece), Data(seed+1, piece+11), Data(seed+2, 77), Data(seed+3, piece/2)
	s := &Stream{Path: p, Want: bytes.Join([][]byte{a, b, d}, nil)}
	var out vfs.RecoverableOutputStream
	s.Err = func() (err error) {
		defer func() {
			if err != nil && out != nil {
				_ = out.Close() // a stream that failed is given up
			}
		}()
		if out, err = w.Open(ctx, p); err != nil {
			return err
		}
		for i, part := range [][]byte{a, b} {
			if _, err := out.Write(part); err != nil {
				return err
			}
			tok, err := out.Persist(ctx)
			if err != nil {
				return fmt.Errorf("persist %d: %w", i+1, err)
			}
			s.Resume = append(s.Resume, tok)
		}
		if _, err := out.Write(c); err != nil {
			return err
		}
		_ = out.Close()
		out = nil
		if out, err = w.Recover(ctx, s.Resume[1]); err != nil {
			return fmt.Errorf("recover: %w", err)
		}
		if _, err := out.Write(d); err != nil {
			return err
		}
		tok, err := out.Persist(ctx)
		if err != nil {
			return fmt.Errorf("persist 3: %w", err)
		}
		s.Resume = append(s.Resume, tok)
		com, err := out.CloseForCommit(ctx)
		if err != nil {
			return fmt.Errorf("close for commit: %w", err)
		}
		s.Commit = com.Recoverable()
		return com.Commit(ctx)
	}()
	return s
}

// RequireNothingCorrupt requires that the target of each stream hold exactly
// its bytes, or (for a stream that failed) nothing.
func RequireNothingCorrupt(t *testing.T, fsys vfs.FileSystem, streams []*Stream) {
	t.Helper()
	for _, s := range streams {
		got, err := vfs.ReadFile(t.Context(), fsys, s.Path)
		if s.Err != nil && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		require.NoError(t, err, "%s (stream error: %v)", s.Path, s.Err)
		require.True(t, bytes.Equal(s.Want, got), "%s holds %d bytes, want %d (first difference at %d; stream error: %v)",
			s.Path, len(got), len(s.Want), firstDiff(got, s.Want), s.Err)
	}
}

// Converge finishes every stream without faults: a stream with a commit
// token is committed again with CommitAfterRecovery (nil whether or not its
// commit happened), one without is recovered from its last token, finished
// and committed; then every token is cleaned up. Every target then holds
// exactly its bytes.
func Converge(t *testing.T, fsys vfs.FileSystem, w vfs.RecoverableWriter, streams []*Stream) {
	t.Helper()
	ctx := t.Context()
	for _, s := range streams {
		switch {
		case s.Commit != nil:
			com, err := w.RecoverForCommit(ctx, s.Commit)
			require.NoError(t, err)
			require.NoError(t, com.CommitAfterRecovery(ctx), "%s (stream error: %v)", s.Path, s.Err)
		case len(s.Resume) > 0:
			// The faults struck before CloseForCommit: start over from the
			// last token, as a restarted job does.
			n := len(s.Resume)
			out, err := w.Recover(ctx, s.Resume[n-1])
			require.NoError(t, err, "%s (stream error: %v)", s.Path, s.Err)
			require.LessOrEqual(t, out.Pos(), int64(len(s.Want)))
			_, err = out.Write(s.Want[out.Pos():])
			require.NoError(t, err)
			com, err := out.CloseForCommit(ctx)
			require.NoError(t, err)
			require.NoError(t, com.Commit(ctx))
		default:
			continue // nothing persisted: nothing to finish
		}
		requireContent(t, fsys, s.Path, s.Want)
		for _, tok := range s.Resume {
			require.NoError(t, w.CleanupRecoverableState(ctx, tok))
		}
	}
}

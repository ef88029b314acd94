// Package rwtest holds the recoverable-writer checks the object-store
// backends' tests share (s3, gs, azblob, and blobfs over gocloud buckets):
// persist, recover from an earlier token, commit, repeated commit, refused
// tokens, and that nothing of a stream is left after commit and cleanup.
package rwtest

import (
	"bytes"
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// Options tune Run for a store.
type Options struct {
	// Piece is a size that crosses the store's part boundary when written
	// twice (such as s3.MinPartSize+1 on S3); zero means 1,000 bytes.
	Piece int
	// Other, when set, is another file system of the same kind (another
	// bucket): its tokens must be refused.
	Other vfs.FileSystem
	// Leftovers, when set, lists what the store keeps of streams outside
	// the bucket's keys (multipart uploads, uncommitted blocks) under dir;
	// Run requires it empty after commit and cleanup.
	Leftovers func(t *testing.T, dir vfs.Path) []string
}

// Data returns n bytes that differ with seed and position.
func Data(seed, n int) []byte {
	b := make([]byte, n)
	x := uint32(seed*2654435761 + 1)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// Run runs the checks on fsys, each in its own directory under dir.
func Run(t *testing.T, fsys vfs.FileSystem, dir vfs.Path, o Options) {
	if o.Piece == 0 {
		o.Piece = 1000
	}
	w, err := vfs.NewRecoverableWriter(fsys)
	require.NoError(t, err)
	sub := func(name string) vfs.Path {
		d := dir.Join(name)
		t.Cleanup(func() { _ = fsys.Delete(context.Background(), d, true) })
		return d
	}
	t.Run("RecoverFromEarlierToken", func(t *testing.T) {
		ctx := t.Context()
		d := sub("recover")
		target := d.Join("out.bin")
		a, b, c, dd := Data(1, o.Piece), Data(2, o.Piece+7), Data(3, 333), Data(4, o.Piece/2+5)
		s, err := w.Open(ctx, target)
		require.NoError(t, err)
		write(t, s, a)
		tok1, err := s.Persist(ctx)
		require.NoError(t, err)
		write(t, s, b)
		tok2, err := s.Persist(ctx)
		require.NoError(t, err)
		write(t, s, c) // never persisted: gone
		require.NoError(t, s.Close())
		requireAbsent(t, fsys, target)

		// A second process recovers from the earlier token: b and c are gone.
		s2, err := w.Recover(ctx, tok1)
		require.NoError(t, err)
		require.Equal(t, int64(len(a)), s2.Pos())
		write(t, s2, dd)
		tok3, err := s2.Persist(ctx)
		require.NoError(t, err)
		write(t, s2, c)
		com, err := s2.CloseForCommit(ctx)
		require.NoError(t, err)
		requireAbsent(t, fsys, target)

		want := cat(a, dd, c)
		require.NoError(t, com.Commit(ctx))
		requireContent(t, fsys, target, want)
		st1, err := fsys.Stat(ctx, target)
		require.NoError(t, err)

		// A repeated commit, from the token, changes nothing.
		com2, err := w.RecoverForCommit(ctx, com.Recoverable())
		require.NoError(t, err)
		require.NoError(t, com2.CommitAfterRecovery(ctx))
		require.NoError(t, com2.CommitAfterRecovery(ctx))
		requireContent(t, fsys, target, want)
		st2, err := fsys.Stat(ctx, target)
		require.NoError(t, err)
		require.Equal(t, st1, st2, "a repeated commit must not rewrite the file")

		for _, tok := range []vfs.ResumeRecoverable{tok1, tok2, tok3} {
			require.NoError(t, w.CleanupRecoverableState(ctx, tok))
		}
		requireOnly(t, fsys, d, "out.bin")
		if o.Leftovers != nil {
			require.Empty(t, o.Leftovers(t, d), "store state left after commit and cleanup")
		}
	})
	t.Run("CommitReplacesAndEmptyFile", func(t *testing.T) {
		ctx := t.Context()
		d := sub("replace")
		target := d.Join("f")
		require.NoError(t, vfs.WriteFile(ctx, fsys, target, []byte("old"), vfs.NoOverwrite))
		s, err := w.Open(ctx, target)
		require.NoError(t, err)
		write(t, s, Data(5, 10))
		com, err := s.CloseForCommit(ctx)
		require.NoError(t, err)
		requireContent(t, fsys, target, []byte("old"))
		require.NoError(t, com.Commit(ctx))
		requireContent(t, fsys, target, Data(5, 10))

		empty := d.Join("empty")
		s, err = w.Open(ctx, empty)
		require.NoError(t, err)
		_, err = s.Persist(ctx)
		require.NoError(t, err)
		com, err = s.CloseForCommit(ctx)
		require.NoError(t, err)
		require.NoError(t, com.Commit(ctx))
		requireContent(t, fsys, empty, nil)
		requireOnly(t, fsys, d, "empty", "f")
		if o.Leftovers != nil {
			require.Empty(t, o.Leftovers(t, d), "store state left after commit")
		}
	})
	t.Run("BadTokensRefused", func(t *testing.T) {
		ctx := t.Context()
		d := sub("bad")
		s, err := w.Open(ctx, d.Join("x"))
		require.NoError(t, err)
		write(t, s, Data(6, 100))
		tok, err := s.Persist(ctx)
		require.NoError(t, err)
		com, err := s.CloseForCommit(ctx)
		require.NoError(t, err)
		bad := map[string][]byte{
			"cut":     tok[:len(tok)-3],
			"altered": flip(tok, len(tok)/2),
			"empty":   nil,
		}
		for name, b := range bad {
			_, err := w.Recover(ctx, b)
			require.ErrorIs(t, err, fs.ErrInvalid, name)
			require.ErrorIs(t, w.CleanupRecoverableState(ctx, b), fs.ErrInvalid, name)
		}
		_, err = w.RecoverForCommit(ctx, vfs.CommitRecoverable(tok))
		require.ErrorIs(t, err, fs.ErrInvalid, "a resume token is no commit token")
		_, err = w.Recover(ctx, vfs.ResumeRecoverable(com.Recoverable()))
		require.ErrorIs(t, err, fs.ErrInvalid, "a commit token is no resume token")
		if o.Other != nil {
			ow, err := vfs.NewRecoverableWriter(o.Other)
			require.NoError(t, err)
			_, err = ow.Recover(ctx, tok)
			require.ErrorIs(t, err, fs.ErrInvalid, "token of another bucket")
			_, err = ow.RecoverForCommit(ctx, com.Recoverable())
			require.ErrorIs(t, err, fs.ErrInvalid, "token of another bucket")
		}
		require.NoError(t, com.Commit(ctx))
		requireContent(t, fsys, d.Join("x"), Data(6, 100))
	})
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x40
	return c
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func write(t *testing.T, s vfs.RecoverableOutputStream, p []byte) {
	t.Helper()
	n, err := s.Write(p)
	require.NoError(t, err)
	require.Equal(t, len(p), n)
}

func requireAbsent(t *testing.T, fsys vfs.FileSystem, p vfs.Path) {
	t.Helper()
	_, err := fsys.Stat(t.Context(), p)
	require.ErrorIs(t, err, fs.ErrNotExist, "%s must not be visible before commit", p)
}

// RequireContent requires that p hold exactly want.
func RequireContent(t *testing.T, fsys vfs.FileSystem, p vfs.Path, want []byte) {
	t.Helper()
	requireContent(t, fsys, p, want)
}

func requireContent(t *testing.T, fsys vfs.FileSystem, p vfs.Path, want []byte) {
	t.Helper()
	got, err := vfs.ReadFile(t.Context(), fsys, p)
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "%s holds %d bytes, want %d (first difference at %d)", p, len(got), len(want), firstDiff(got, want))
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// RequireOnly requires that dir list exactly names (no temporary object).
func RequireOnly(t *testing.T, fsys vfs.FileSystem, dir vfs.Path, names ...string) {
	t.Helper()
	requireOnly(t, fsys, dir, names...)
}

func requireOnly(t *testing.T, fsys vfs.FileSystem, dir vfs.Path, names ...string) {
	t.Helper()
	entries, err := fsys.List(t.Context(), dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Path.Name())
	}
	assert.Equal(t, names, got, "entries of %s (%s)", dir, strings.Join(got, ", "))
}

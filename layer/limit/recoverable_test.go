package limit_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/layer/limit"
	"github.com/vfskit/vfskit/vfs"
)

// TestRecoverableTakesAnOutputSlot: a recoverable stream holds an output slot
// from Open (or Recover) to Close or CloseForCommit.
func TestRecoverableTakesAnOutputSlot(t *testing.T) {
	ctx := t.Context()
	f, _ := newLimited(t, limit.Settings{Output: 1})
	w, err := vfs.NewRecoverableWriter(f)
	require.NoError(t, err)
	out, err := w.Open(ctx, vfs.MustPath("/out/part-0"))
	require.NoError(t, err)
	_, n := f.Streams()
	require.Equal(t, 1, n)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = f.Create(cancelled, vfs.MustPath("/other"), vfs.NoOverwrite)
	require.ErrorIs(t, err, context.Canceled, "Create while the recoverable stream holds the only output slot")
	_, err = w.Open(cancelled, vfs.MustPath("/out/part-1"))
	require.ErrorIs(t, err, context.Canceled, "a second recoverable stream")

	_, err = out.Write([]byte("result"))
	require.NoError(t, err)
	tok, err := out.Persist(ctx)
	require.NoError(t, err)
	require.NoError(t, out.Close())
	_, n = f.Streams()
	require.Equal(t, 0, n, "after Close")

	in, err := w.Recover(ctx, tok)
	require.NoError(t, err)
	_, n = f.Streams()
	require.Equal(t, 1, n, "after Recover")
	c, err := in.CloseForCommit(ctx)
	require.NoError(t, err)
	require.NoError(t, in.Close())
	_, n = f.Streams()
	require.Equal(t, 0, n, "after CloseForCommit (and a Close)")
	require.NoError(t, c.Commit(ctx))
}

package fault_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/fault"
	"github.com/vfskit/vfskit/vfs"
)

// TestRecoverableFaults fails a Persist and a Commit: the file is published
// only by the Commit that goes through, whole.
func TestRecoverableFaults(t *testing.T) {
	ctx := t.Context()
	boom := errors.New("boom")
	f, err := fault.New(memfs.New(), 1,
		fault.Rule{Ops: []fault.Op{fault.Persist}, Path: "/out/*", Times: 1, Err: boom},
		fault.Rule{Ops: []fault.Op{fault.Commit}, Times: 1, Err: boom})
	require.NoError(t, err)
	w, err := vfs.NewRecoverableWriter(f)
	require.NoError(t, err)
	p := vfs.MustPath("/out/part-0")
	out, err := w.Open(ctx, p)
	require.NoError(t, err)
	_, err = out.Write([]byte("result"))
	require.NoError(t, err)
	_, err = out.Persist(ctx)
	require.ErrorIs(t, err, fault.ErrInjected)
	require.ErrorIs(t, err, boom)
	_, err = out.Persist(ctx)
	require.NoError(t, err)
	c, err := out.CloseForCommit(ctx)
	require.NoError(t, err)
	require.ErrorIs(t, c.Commit(ctx), fault.ErrInjected)
	ok, err := vfs.Exists(ctx, f, p)
	require.NoError(t, err)
	require.False(t, ok, "published by a failed Commit")
	require.NoError(t, c.Commit(ctx))
	got, err := vfs.ReadFile(ctx, f, p)
	require.NoError(t, err)
	require.Equal(t, "result", string(got))
	require.Equal(t, 1, f.Fired(0))
	require.Equal(t, 1, f.Fired(1))
}

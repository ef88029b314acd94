package record_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/layer/record"
	"github.com/vfskit/vfskit/vfs"
)

func TestRecoverableCalls(t *testing.T) {
	ctx := t.Context()
	f := record.New(memfs.New())
	w, err := vfs.NewRecoverableWriter(f)
	require.NoError(t, err)
	p := vfs.MustPath("/out/part-0")
	out, err := w.Open(ctx, p)
	require.NoError(t, err)
	_, err = out.Write([]byte("result"))
	require.NoError(t, err)
	tok, err := out.Persist(ctx)
	require.NoError(t, err)
	require.NoError(t, out.Close())
	in, err := w.Recover(ctx, tok)
	require.NoError(t, err)
	c, err := in.CloseForCommit(ctx)
	require.NoError(t, err)
	rc, err := w.RecoverForCommit(ctx, c.Recoverable())
	require.NoError(t, err)
	require.NoError(t, rc.CommitAfterRecovery(ctx))
	require.NoError(t, w.CleanupRecoverableState(ctx, tok))

	var ops []string
	for _, call := range f.Calls() {
		ops = append(ops, call.Op)
		require.NoError(t, call.Err, call.Op)
	}
	require.Equal(t, []string{layer.OpRecoverableOpen, layer.OpPersist, layer.OpRecover, layer.OpCloseForCommit,
		layer.OpRecoverForCommit, layer.OpCommitAfterRecover, layer.OpCleanupRecoverable}, ops)
	require.Equal(t, p, f.Calls()[0].Path, "the path of the Open")
}

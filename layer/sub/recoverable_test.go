package sub_test

import (
	"io/fs"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/sub"
	"github.com/vfskit/vfskit/vfs"
)

// TestRecoverableConfined: the view's writer writes inside the subtree only,
// and takes only its own tokens.
func TestRecoverableConfined(t *testing.T) {
	ctx := t.Context()
	inner := memfs.New()
	top := vfs.MustPath(inner.URI().String())
	a, err := sub.New(inner, top.Join("a"))
	require.NoError(t, err)
	b, err := sub.New(inner, top.Join("b"))
	require.NoError(t, err)
	wa, err := vfs.NewRecoverableWriter(a)
	require.NoError(t, err)
	wb, err := vfs.NewRecoverableWriter(b)
	require.NoError(t, err)
	wInner, err := vfs.NewRecoverableWriter(inner)
	require.NoError(t, err)

	// Open maps its path as every method does (TestNoEscape tries them all).
	_, err = wa.Open(ctx, vfs.MustPath("memory://other/secret"))
	require.ErrorIs(t, err, fs.ErrInvalid)

	out, err := wa.Open(ctx, vfs.MustPath("/out/part-0"))
	require.NoError(t, err)
	_, err = out.Write([]byte("result"))
	require.NoError(t, err)
	tok, err := out.Persist(ctx)
	require.NoError(t, err)
	c, err := out.CloseForCommit(ctx)
	require.NoError(t, err)
	require.NoError(t, c.Commit(ctx))
	got, err := vfs.ReadFile(ctx, inner, top.Join("a", "out", "part-0"))
	require.NoError(t, err)
	require.Equal(t, "result", string(got))

	_, err = wb.Recover(ctx, tok)
	require.ErrorIs(t, err, fs.ErrInvalid, "a token of another subtree")
	_, err = wb.RecoverForCommit(ctx, c.Recoverable())
	require.ErrorIs(t, err, fs.ErrInvalid, "a commit token of another subtree")
	_, err = wInner.Recover(ctx, tok)
	require.ErrorIs(t, err, fs.ErrInvalid, "the view's token below it")

	// A token made below the view is not the view's.
	below, err := wInner.Open(ctx, top.Join("secret"))
	require.NoError(t, err)
	btok, err := below.Persist(ctx)
	require.NoError(t, err)
	_, err = wa.Recover(ctx, btok)
	require.ErrorIs(t, err, fs.ErrInvalid)

	// Nothing was written outside /a but the in-progress file of /secret,
	// which listings leave out.
	root, err := afero.ReadDir(inner.Afero(), "/")
	require.NoError(t, err)
	var parts []string
	for _, fi := range root {
		if aferofs.IsInProgressName(fi.Name()) {
			parts = append(parts, fi.Name())
		}
	}
	require.Len(t, parts, 1, "the in-progress file of /secret")
	var outside []string
	require.NoError(t, vfs.Walk(ctx, inner, top, func(st vfs.FileStatus, err error) error {
		if err == nil && !st.IsDir && st.Path.Depth() > 0 && st.Path.Path()[:3] != "/a/" {
			outside = append(outside, st.Path.Path())
		}
		return err
	}))
	require.Empty(t, outside, "files outside the subtree")
	require.NoError(t, below.Close())
}

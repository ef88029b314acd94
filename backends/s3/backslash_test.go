package s3_test

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestBackslashNeverReachesAnotherObject: SeaweedFS stores '\' as '/', so a name
// with '\' would reach another object ("a\b" is "a/b" there). Every operation on
// such a name is refused before any request, and the object it would have
// reached keeps its bytes.
func TestBackslashNeverReachesAnotherObject(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	ctx := t.Context()
	fsys, _ := newFS(t, srv, optionsFor(srv, nil))
	victim := vfs.MustPath("/a/b")
	require.NoError(t, vfs.WriteFile(ctx, fsys, victim, []byte("keep me"), vfs.NoOverwrite))
	named, err := vfs.ParsePath(`/a\b`)
	require.NoError(t, err)
	require.Equal(t, `a\b`, named.Name(), "the exact parser keeps '\\'")

	requireRefused := func(op string, err error) {
		t.Helper()
		require.ErrorIs(t, err, fs.ErrInvalid, "%s %s", op, named)
		assert.Contains(t, err.Error(), `a\\b`, "%s: the error names the key", op)
		assert.Contains(t, err.Error(), "'/'", "%s: the error says why", op)
	}
	_, err = fsys.Stat(ctx, named)
	requireRefused("Stat", err)
	_, err = vfs.ReadFile(ctx, fsys, named)
	requireRefused("ReadFile", err)
	requireRefused("Delete", fsys.Delete(ctx, named, true))
	requireRefused("WriteFile", vfs.WriteFile(ctx, fsys, named, []byte("other"), vfs.Overwrite))
	requireRefused("Rename", fsys.Rename(ctx, victim, named))

	got, err := vfs.ReadFile(ctx, fsys, victim)
	require.NoError(t, err)
	assert.Equal(t, "keep me", string(got), "the object '\\' would have reached is untouched")
}

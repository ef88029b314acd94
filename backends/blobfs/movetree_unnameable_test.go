package blobfs_test

import (
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/vfs"
)

// TestMoveTreeNamesKeysNoPathNamesWrittenMeanwhile: a key no path names
// written under the source while a move runs (after its check) stays at the
// source, and the move names it in its result and its *vfs.LeftError.
func TestMoveTreeNamesKeysNoPathNamesWrittenMeanwhile(t *testing.T) {
	ctx := t.Context()
	fsys, b := newMem(t, blobfs.Options{})
	files := map[string]string{"mv/src/a": "A", "mv/src/sub/b": "B"}
	for k, v := range files {
		require.NoError(t, b.WriteAll(ctx, k, []byte(v), nil))
	}
	const late = "mv/src/./late.txt"
	var once sync.Once
	var putErr error
	opts := vfs.CopyOptions{Progress: func(vfs.CopyProgress) {
		once.Do(func() { putErr = b.WriteAll(ctx, late, []byte("late"), nil) })
	}}
	r, err := vfs.MoveTree(ctx, fsys, vfs.MustPath("mem://test/mv/dst"), fsys, vfs.MustPath("mem://test/mv/src"), opts)
	require.NoError(t, putErr)
	require.ErrorIs(t, err, vfs.ErrChanged, "a move that leaves a key at the source says so")
	var left *vfs.LeftError
	require.ErrorAs(t, err, &left)
	assert.Equal(t, []string{late}, left.Unnameable)
	assert.Contains(t, err.Error(), strconv.Quote(late), "the error names the key left")
	require.NotNil(t, r)
	assert.Equal(t, []string{late}, r.Unnameable, "the result names the key left")
	assert.Empty(t, r.Left)

	got, err := b.ReadAll(ctx, late)
	require.NoError(t, err, "the key written meanwhile stays at the source")
	assert.Equal(t, "late", string(got))
	for k, v := range files {
		exists, err := b.Exists(ctx, k)
		require.NoError(t, err)
		assert.False(t, exists, "%s was moved", k)
		got, err := b.ReadAll(ctx, "mv/dst/"+k[len("mv/src/"):])
		require.NoError(t, err)
		assert.Equal(t, v, string(got))
	}
}

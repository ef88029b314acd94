package local

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLinkNoReplace(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	require.NoError(t, os.WriteFile(a, []byte("a"), 0o644))
	require.NoError(t, os.WriteFile(b, []byte("b"), 0o644))

	assert.ErrorIs(t, linkNoReplace(a, b), fs.ErrExist)
	data, err := os.ReadFile(b)
	require.NoError(t, err)
	assert.Equal(t, "b", string(data), "the target is untouched")

	require.NoError(t, linkNoReplace(a, c))
	data, err = os.ReadFile(c)
	require.NoError(t, err)
	assert.Equal(t, "a", string(data))
	_, err = os.Stat(a)
	assert.ErrorIs(t, err, fs.ErrNotExist, "the source is gone")

	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	assert.ErrorIs(t, linkNoReplace(sub, filepath.Join(dir, "sub2")), errors.ErrUnsupported, "directories need the fallback")
	assert.ErrorIs(t, linkNoReplace(filepath.Join(dir, "missing"), filepath.Join(dir, "x")), fs.ErrNotExist)
}

func TestRenameNoReplace(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.Mkdir(a, 0o755))
	require.NoError(t, os.Mkdir(b, 0o755))
	err := renameNoReplace(a, b)
	require.Error(t, err)
	assert.True(t, errors.Is(err, fs.ErrExist) || errors.Is(err, errors.ErrUnsupported), "%v", err)
	require.NoError(t, os.Remove(b))
	if err := renameNoReplace(a, b); !errors.Is(err, errors.ErrUnsupported) {
		require.NoError(t, err)
		_, err = os.Stat(b)
		assert.NoError(t, err)
	}
}

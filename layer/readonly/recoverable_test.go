package readonly_test

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/readonly"
	"github.com/vfskit/vfskit/vfs"
)

func TestNoRecoverableWriter(t *testing.T) {
	inner := memfs.New()
	w, err := vfs.NewRecoverableWriter(readonly.New(inner))
	require.ErrorIs(t, err, fs.ErrPermission)
	require.Nil(t, w)
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
}

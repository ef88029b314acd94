package vfs_test

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// TestFileStatusSize: the file type fits in FileStatus's padding, so Stat
// copies no more bytes than before.
func TestFileStatusSize(t *testing.T) {
	require.Equal(t, uintptr(88), unsafe.Sizeof(vfs.FileStatus{}))
}

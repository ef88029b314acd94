package vfs_test

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// TestFileStatusSize: FileStatus is passed by value on every Stat; the file
// type fits in its padding, and the FileID adds 16 bytes.
func TestFileStatusSize(t *testing.T) {
	require.Equal(t, uintptr(104), unsafe.Sizeof(vfs.FileStatus{}))
}

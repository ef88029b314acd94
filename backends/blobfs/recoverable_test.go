package blobfs_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/internal/rwtest"
	"github.com/vfskit/vfskit/vfs"
)

// TestRecoverableMemBucket runs the recoverable writer's checks on a gocloud
// mem:// bucket: the generic path, pieces concatenated by a streamed copy.
func TestRecoverableMemBucket(t *testing.T) {
	fsys, err := vfs.Get(context.Background(), memScheme+"://recoverable/")
	require.NoError(t, err)
	other, err := vfs.Get(context.Background(), memScheme+"://recoverable-other/")
	require.NoError(t, err)
	rwtest.Run(t, fsys, vfs.MustPath(memScheme+"://recoverable/rw"), rwtest.Options{Other: other})
}

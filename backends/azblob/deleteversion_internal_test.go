package azblob

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/vfs"
)

// TestDeleteVersionIsConditional: the delete sends If-Match, and Azurite
// refuses another ETag.
func TestDeleteVersionIsConditional(t *testing.T) {
	srv := azuritetest.Shared(t)
	container, err := srv.NewContainer(t.Context())
	require.NoError(t, err)
	fsys, err := New(t.Context(), container, Options{ConnectionString: srv.ConnectionString})
	require.NoError(t, err)
	del := func(key, v string) error { return store{}.DeleteVersion(t.Context(), fsys.Bucket(), container, key, v) }
	buckettest.ConditionalDelete(t, fsys, vfs.MustPath("azblob://"+container+"/cond"), "cond", del, `"0x8D0000000000000"`)
}

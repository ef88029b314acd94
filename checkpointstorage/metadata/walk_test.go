package metadata_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/fixtures"
	"github.com/vfskit/vfskit/vfs"
)

// TestFixtureFilesArePresent: every relative reference of every fixture
// resolves to a file beside its _metadata with exactly the recorded size (as
// PROVENANCE.md says), and the incremental RocksDB checkpoints reference their
// shared/ files by absolute paths.
func TestFixtureFilesArePresent(t *testing.T) {
	root, files := fixtures.FlinkMetadataFiles(t)
	var relative, absolute int
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		m, err := metadata.Decode(data)
		require.NoError(t, err, f)
		dir := vfs.MustPath("file://" + filepath.ToSlash(filepath.Dir(filepath.Join(root, f))))
		for _, ref := range m.Files() {
			if ref.Reference == metadata.Absolute {
				absolute++
				continue
			}
			relative++
			p, err := ref.Resolve(dir)
			require.NoError(t, err)
			st, err := os.Stat(p.Path())
			require.NoError(t, err, "%s: %s", f, ref.Path)
			require.Equal(t, ref.Size, st.Size(), "%s: %s", f, ref.Path)
		}
	}
	require.Equal(t, 1834, relative)
	require.NotZero(t, absolute)
}

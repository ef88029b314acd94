package metadata_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	m "github.com/vfskit/vfskit/checkpointstorage/metadata"
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
		md, err := m.Decode(data)
		require.NoError(t, err, f)
		dir := vfs.MustPath("file://" + filepath.ToSlash(filepath.Dir(filepath.Join(root, f))))
		for _, ref := range md.Files() {
			if ref.Reference == m.Absolute {
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

func TestSummaries(t *testing.T) {
	md := everyKind(t, 7)
	op := &md.Operators[0]
	require.Equal(t, []string{"SourceReaderState", "u", "b"}, op.StateNames())
	require.Equal(t, 2, op.KeyedSubtasks())
	require.Equal(t, 4, op.SubtaskStates())
	require.Equal(t, []string{}, md.Operators[2].StateNames())
	c := md.HandleCounts()
	require.Equal(t, 4, c["RelativeFileStateHandle"])
	require.Equal(t, 2, c["ChangelogStateBackendHandle"])
	n := 0
	for _, v := range c {
		n += v
	}
	require.Len(t, md.Handles(), n)
	require.Equal(t, int64(1+3*4+4+0), md.InlineBytes()) // coordinator, inline ×4, in-memory changelog
	files := md.Files()
	require.Len(t, files, 8)
	require.Equal(t, m.FileRef{Path: "s3://b/shared/seg", Reference: m.Absolute, Size: 20, Offset: 100, Segment: true, Handle: files[1].Handle}, files[1])
}

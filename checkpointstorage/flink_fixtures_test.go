package checkpointstorage_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/fixtures"
)

// TestLoadFlinkCheckpoint: LoadCheckpoint reads what Flink wrote, through the
// same pointer resolution as vfskit's own checkpoints (every fixture, by its
// directory).
func TestLoadFlinkCheckpoint(t *testing.T) {
	root, files := fixtures.FlinkMetadataFiles(t)
	for _, f := range files {
		dir := "file://" + filepath.ToSlash(filepath.Dir(filepath.Join(root, f)))
		m, loc, err := cs.LoadCheckpoint(t.Context(), dir)
		require.NoError(t, err, f)
		require.Equal(t, metadata.FormatFlink, m.Format, f)
		require.Equal(t, dir, loc.ExternalPointer())
	}
	m, _, err := cs.LoadCheckpoint(t.Context(), "file://"+filepath.ToSlash(filepath.Join(root,
		"charles-tan-state-processor-example/savepoint-27c85e-10ecaba6c582/_metadata")))
	require.NoError(t, err)
	require.Equal(t, int64(9), m.CheckpointID)
	require.Equal(t, "savepoint", m.Type())
	require.Equal(t, "canonical", m.SavepointFormat())
	require.Equal(t, "f84251cb", m.Operators[0].ID.String()[:8], "the KafkaSource's id")
}

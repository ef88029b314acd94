package metadata_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/fixtures"
)

func TestDecodeFlinkFixtures(t *testing.T) {
	root, files := fixtures.FlinkMetadataFiles(t)
	require.Len(t, files, 195)
	versions := map[int]int{}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		m, err := metadata.Decode(data)
		if !assertNoErr(t, err, f) {
			continue
		}
		versions[m.Version]++
		require.Equal(t, metadata.FormatFlink, m.Format, f)
	}
	require.Equal(t, map[int]int{2: 56, 3: 62, 4: 75, 5: 2}, versions)
}

func assertNoErr(t *testing.T, err error, f string) bool {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", f, err)
		return false
	}
	return true
}

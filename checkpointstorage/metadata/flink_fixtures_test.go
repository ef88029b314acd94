package metadata_test

import (
	"bytes"
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

// TestRoundTripFlinkFixtures: decode then encode gives the identical bytes for
// every fixture.
func TestRoundTripFlinkFixtures(t *testing.T) {
	root, files := fixtures.FlinkMetadataFiles(t)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		m, err := metadata.Decode(data)
		require.NoError(t, err, f)
		again, err := metadata.Encode(m)
		require.NoError(t, err, f)
		if !bytes.Equal(data, again) {
			i := 0
			for i < len(data) && i < len(again) && data[i] == again[i] {
				i++
			}
			t.Errorf("%s: re-encoded bytes differ from byte %d on (%d vs %d bytes)", f, i, len(data), len(again))
		}
	}
}

package suite_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/bench"
	"github.com/vfskit/vfskit/internal/bench/suite"
	"github.com/vfskit/vfskit/internal/s3test"
)

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

// TestBenchSmoke runs every measure of `make bench` once with tiny sizes, S3
// included, so that the benchmarks cannot rot: each must run to the end, check
// what it read, and fill in its result. Targets are not checked (-race and a
// shared machine make times meaningless here).
func TestBenchSmoke(t *testing.T) {
	c := suite.Tiny()
	c.Dir = t.TempDir()
	c.S3 = s3test.SeaweedFS(t)
	// Under make test (VFSKIT_REQUIRE_S3=1) a missing rclone is built, and
	// one that cannot be is a failure.
	rclone, err := suite.FindRclone(s3test.Required())
	switch {
	case err == nil:
		vfskit, err := suite.BuildVfskit(t.TempDir())
		require.NoError(t, err)
		c.Tools = &suite.CopyTools{Vfskit: vfskit, Rclone: rclone}
	case s3test.Required():
		require.NoError(t, err, "rclone")
	default:
		t.Logf("the copy measures against rclone do not run: %v", err)
	}
	results, err := suite.Run(t.Context(), c)
	require.NoError(t, err)
	names := map[string]bool{}
	for _, r := range results {
		assert.NotEmpty(t, r.Name)
		assert.False(t, names[r.Name], "measure %q twice", r.Name)
		names[r.Name] = true
		assert.Positive(t, r.Ours, r.Name)
		assert.NotEmpty(t, r.Unit, r.Name)
		assert.NotEmpty(t, r.Target, r.Name)
		if strings.HasPrefix(r.Name, "s3 ") {
			assert.NotEmpty(t, r.Requests, r.Name)
		}
	}
	for _, want := range []string{"local sequential", "local 20 files", "memory:// write", "memory:// 100 files",
		"memory:// cost per file", "memory:// 200 files of 1 KiB in 100 directories", "cached vfs.Get", "empty layer over memory://", "empty layer over file://", "cached Path.FileSystem", "s3 upload", "s3 download",
		"s3 4 random ReadAt", "s3 list", "s3 recursive delete", "s3 recoverable writer", "file://", "s3://", "MemoryBackendCheckpointStorage"} {
		assert.True(t, hasPrefixOrSuffix(names, want), "no measure named like %q in %v", want, names)
	}
	if c.Tools != nil {
		for _, want := range []string{"upload 20 files", "upload 2 MiB", "download 20 files", "download 2 MiB"} {
			assert.True(t, hasPrefixOrSuffix(names, want), "no measure named like %q in %v", want, names)
		}
	}
	out := filepath.Join(t.TempDir(), "bench", "results.json")
	require.NoError(t, bench.WriteJSON(out, results))
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"name": "s3 recursive delete of 30 keys"`)
	var table strings.Builder
	require.NoError(t, bench.Table(&table, results))
	assert.Equal(t, len(results)+2, strings.Count(table.String(), "\n"))
}

func hasPrefixOrSuffix(names map[string]bool, s string) bool {
	for n := range names {
		if strings.HasPrefix(n, s) || strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

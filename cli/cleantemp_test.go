package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCleanTempCommand(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "a", ".vfskit-tmp-1x2y3z")
	fresh := filepath.Join(dir, "a", ".vfskit-tmp-9q")
	lookAlike := filepath.Join(dir, ".vfskit-tmp-notes.txt")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "a"), 0o777))
	old := time.Now().Add(-2 * time.Hour)
	for _, n := range []string{stale, fresh, lookAlike} {
		require.NoError(t, os.WriteFile(n, []byte("x"), 0o666))
	}
	require.NoError(t, os.Chtimes(stale, old, old))
	require.NoError(t, os.Chtimes(lookAlike, old, old))

	assert.Equal(t, "would remove file://"+stale+"\n", ok(t, "clean-temp", "--dry-run", dir))
	assert.FileExists(t, stale)
	assert.Equal(t, "", ok(t, "clean-temp", "--older-than", "3h", dir), "younger than 3h: kept")
	assert.Equal(t, "removed file://"+stale+"\n", ok(t, "clean-temp", dir))
	assert.NoFileExists(t, stale)
	assert.FileExists(t, fresh, "younger than the default hour: a write in flight")
	assert.FileExists(t, lookAlike, "not named as vfskit names its temporary files")
	assert.Equal(t, "removed file://"+fresh+"\n", ok(t, "clean-temp", "--older-than", "0s", dir))

	assert.Contains(t, fails(t, ExitUsage, "clean-temp", "--older-than", "-1h", dir), "--older-than -1h0m0s is negative")
	assert.Contains(t, fails(t, ExitUsage, "clean-temp"), "requires at least 1 arg")
	assert.Contains(t, fails(t, ExitFailure, "clean-temp", filepath.Join(dir, "missing")), "missing")
	assert.Equal(t, "", ok(t, "clean-temp", "memory://clean-temp-test/"), "nothing to clean in memory://")
}

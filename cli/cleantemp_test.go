package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/vfs"
)

func TestCleanTempCommand(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "a"), 0o777))
	stale := pendingWrite(t, filepath.Join(dir, "a", "stale"))
	fresh := pendingWrite(t, filepath.Join(dir, "a", "fresh"))
	lookAlike := filepath.Join(dir, ".vfskit-tmp-notes.txt")
	require.NoError(t, os.WriteFile(lookAlike, []byte("x"), 0o666))
	old := time.Now().Add(-2 * time.Hour)
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

// pendingWrite starts a write of the local file target that is never closed,
// as a killed writer leaves it, and returns the path of its temporary file.
func pendingWrite(t *testing.T, target string) string {
	t.Helper()
	before, err := filepath.Glob(filepath.Join(filepath.Dir(target), ".vfskit-tmp-*"))
	require.NoError(t, err)
	out, err := local.New().Create(t.Context(), vfs.MustPath(target), vfs.NoOverwrite)
	require.NoError(t, err)
	t.Cleanup(func() { _ = out.Close() })
	require.NoError(t, out.Sync())
	after, err := filepath.Glob(filepath.Join(filepath.Dir(target), ".vfskit-tmp-*"))
	require.NoError(t, err)
	for _, n := range after {
		if !slices.Contains(before, n) {
			return n
		}
	}
	require.FailNow(t, "no temporary file", target)
	return ""
}

// TestTempLookalikesAreCopied copies and moves a local tree holding files whose
// names only start like vfskit's temporary names: every one arrives byte for
// byte, and the move leaves none of them behind.
func TestTempLookalikesAreCopied(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	files := map[string]string{
		".vfskit-tmp-notes.txt": "notes",
		".vfskit-tmp-cache/db":  "db",
		"plain.txt":             "plain",
	}
	for name, data := range files {
		n := filepath.Join(src, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(n), 0o777))
		require.NoError(t, os.WriteFile(n, []byte(data), 0o666))
	}
	dst := memRoot(t) + "/dst"
	ok(t, "cp", "-r", src, dst)
	for name, data := range files {
		assert.Equal(t, data, ok(t, "cat", dst+"/"+name), name)
	}
	assert.Equal(t, ".vfskit-tmp-cache/\n.vfskit-tmp-notes.txt\nplain.txt\n", ok(t, "ls", dst+"/"))

	moved := filepath.Join(t.TempDir(), "moved")
	ok(t, "mv", src, moved)
	for name, data := range files {
		got, err := os.ReadFile(filepath.Join(moved, filepath.FromSlash(name)))
		require.NoError(t, err, name)
		assert.Equal(t, data, string(got), name)
	}
}

// Package testenv holds what the test harnesses that start servers
// (internal/s3test, internal/azuritetest) share: where the repository is and
// where the installed servers are cached.
package testenv

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
)

// CacheDir is where scripts/build-seaweedfs.sh and scripts/install-azurite.sh
// put what they build or install:
// ${VFSKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vfskit}.
func CacheDir() string {
	if cache := os.Getenv("VFSKIT_CACHE_DIR"); cache != "" {
		return cache
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "vfskit")
}

// RepoRoot finds the vfskit module root (the directory of its go.mod) above the
// working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for range 64 {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/vfskit/vfskit\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", errors.New("cannot find the vfskit repository root (go.mod) above the working directory")
}

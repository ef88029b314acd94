package checkpointstorage_test

import (
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/vfs"
)

// fileBackend gives each test a fresh temporary directory on local disk.
var fileBackend = backend{name: "file", base: func(t *testing.T) vfs.Path {
	return vfs.MustPath("file:///" + strings.TrimPrefix(filepath.ToSlash(t.TempDir()), "/") + "/checkpoints")
}}

func init() { testBackends = append(testBackends, fileBackend) }

package conformance

import (
	"bytes"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// iofsCases run the standard library's file system checker over vfs.IOFS.
var iofsCases = []testCase{
	{name: "TestFS", run: func(t *testing.T, e *env) {
		files := map[string][]byte{
			"a.txt":             []byte("alpha"),
			"empty":             nil,
			"dir/b.txt":         []byte("beta"),
			"dir/sub/c.txt":     pattern(30, 0, 5000),
			"dir/sub/d e#f.txt": []byte("special"),
		}
		for name, data := range files {
			e.write(t, e.path(name), data)
		}
		expected := make([]string, 0, len(files))
		for name := range files {
			expected = append(expected, name)
		}
		if !e.objectStore {
			require.NoError(t, e.fsys.Mkdirs(e.ctx, e.path("emptydir")), "Mkdirs")
			expected = append(expected, "emptydir")
		}
		fsys := vfs.IOFS(e.ctx, e.fsys, e.dir)
		require.NoError(t, fstest.TestFS(fsys, expected...), "testing/fstest.TestFS over vfs.IOFS(%s)", e.dir)
		for name, data := range files {
			got, err := fs.ReadFile(fsys, name)
			require.NoError(t, err, "fs.ReadFile(%q)", name)
			require.True(t, bytes.Equal(data, got), "fs.ReadFile(%q) returned %s; want %s", name, abbrev(got), abbrev(data))
		}
	}},
}

package conformance

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// markerCases check that the directory markers other clients of an object
// store write read as directories, and that a recursive Delete removes them
// (Harness.PutObject writes them).
var markerCases = []testCase{
	{name: "SlashMarker", run: func(t *testing.T, e *env) {
		for i, ct := range []string{"application/x-directory", "application/octet-stream", ""} {
			e.put(t, fmt.Sprintf("d%d/", i), nil, ct, nil)
		}
		assert.Equal(t, []string{"d0", "d1", "d2"}, e.names(t, e.dir))
		e.requireMarkedDirs(t, "d0", "d1", "d2")
	}},
	{name: "SlashMarkerWithFiles", run: func(t *testing.T, e *env) {
		e.put(t, "t/d/", nil, "application/x-directory", nil)
		e.put(t, "t/d/e/", nil, "application/x-directory", nil)
		e.put(t, "t/d/f.txt", []byte("f"), "text/plain", nil)
		e.requireDir(t, e.path("t", "d", "e"))
		assert.Equal(t, []string{"e", "f.txt"}, e.names(t, e.path("t", "d")))
		require.NoError(t, e.fsys.Delete(e.ctx, e.path("t"), true), "Delete(%s, recursive)", e.path("t"))
		e.requireMissing(t, e.path("t", "d", "e"))
		e.requireMissing(t, e.path("t"))
	}},
	{name: "HadoopFolder", run: func(t *testing.T, e *env) {
		e.put(t, "h/d_$folder$", nil, "", nil)
		e.put(t, "h/d/sub_$folder$", nil, "", nil)
		e.put(t, "h/d/f.txt", []byte("f"), "", nil)
		e.requireDir(t, e.path("h", "d"))
		assert.Equal(t, []string{"d"}, e.names(t, e.path("h")), "d_$folder$ lists as the directory d")
		assert.Equal(t, []string{"f.txt", "sub"}, e.names(t, e.path("h", "d")))
		e.requireDir(t, e.path("h", "d", "sub"))
		assert.Empty(t, e.names(t, e.path("h", "d", "sub")), "List of a directory only a marker names")
		require.NoError(t, e.fsys.Delete(e.ctx, e.path("h", "d", "sub"), false), "Delete(%s) of an empty directory", e.path("h", "d", "sub"))
		e.requireMissing(t, e.path("h", "d", "sub"))
		require.NoError(t, e.fsys.Delete(e.ctx, e.path("h", "d"), true), "Delete(%s, recursive)", e.path("h", "d"))
		e.requireMissing(t, e.path("h", "d"))
		e.requireMissing(t, e.path("h"))
	}},
	{name: "FolderBlob", run: func(t *testing.T, e *env) {
		if !e.h.FolderBlobs {
			t.Skip("the store holds no ADLS folder blobs (Harness.FolderBlobs)")
		}
		folder := map[string]string{"hdi_isfolder": "true"}
		e.put(t, "a/d", nil, "", folder)
		e.put(t, "a/d/e", nil, "", folder)
		e.put(t, "a/d/f.txt", []byte("f"), "", nil)
		e.requireDir(t, e.path("a", "d"))
		e.requireDir(t, e.path("a", "d", "e"))
		assert.Equal(t, []string{"d"}, e.names(t, e.path("a")))
		assert.Equal(t, []string{"e", "f.txt"}, e.names(t, e.path("a", "d")))
		assert.Empty(t, e.names(t, e.path("a", "d", "e")))
		err := e.fsys.Delete(e.ctx, e.path("a", "d"), false)
		requirePathError(t, err, vfs.ErrDirNotEmpty, e.path("a", "d"), "Delete(%s) of a folder that holds files", e.path("a", "d"))
		require.NoError(t, e.fsys.Delete(e.ctx, e.path("a", "d"), true))
		e.requireMissing(t, e.path("a", "d"))
		e.requireMissing(t, e.path("a"))
	}},
}

// put writes the object dir/name with Harness.PutObject, skipping the case
// when the harness has none.
func (e *env) put(t *testing.T, name string, data []byte, contentType string, md map[string]string) {
	t.Helper()
	if e.h.PutObject == nil {
		t.Skip("the harness writes no objects as another client would (Harness.PutObject)")
	}
	require.NoError(t, e.h.PutObject(e.ctx, e.dir, name, data, contentType, md), "PutObject(%s, %q)", e.dir, name)
}

// requireMarkedDirs requires that each name under the test directory is a
// directory only markers make, which lists empty and which a recursive
// Delete removes.
func (e *env) requireMarkedDirs(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		p := e.path(n)
		e.requireDir(t, p)
		assert.Empty(t, e.names(t, p), "List(%s) of a directory only a marker names", p)
	}
	for _, n := range names {
		p := e.path(n)
		require.NoError(t, e.fsys.Delete(e.ctx, p, true), "Delete(%s, recursive)", p)
		e.requireMissing(t, p)
	}
}

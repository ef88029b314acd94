package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStatSymlinks checks that stat shows a symbolic link as one, with its
// target's type, in text and in --json.
func TestStatSymlinks(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "file"), []byte("hello"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "dir"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(dir, "file"), filepath.Join(dir, "to-file")))
	require.NoError(t, os.Symlink("dir", filepath.Join(dir, "to-dir")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling")))
	root := "file://" + dir
	for _, tc := range []struct {
		name, typeLine, target     string
		jsonType, targetType, jTgt string
		size                       int64
	}{
		{name: "file", typeLine: "Type:        file", jsonType: "file", size: 5},
		{name: "dir", typeLine: "Type:        directory", jsonType: "dir"},
		{name: "to-file", typeLine: "Type:        symbolic link to a file", target: "Target:      " + root + "/file", jsonType: "symlink", targetType: "file", jTgt: root + "/file", size: 5},
		{name: "to-dir", typeLine: "Type:        symbolic link to a directory", target: "Target:      " + root + "/dir", jsonType: "symlink", targetType: "dir", jTgt: root + "/dir"},
		{name: "dangling", typeLine: "Type:        symbolic link (its target does not exist)", jsonType: "symlink", targetType: "missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := ok(t, "stat", root+"/"+tc.name)
			assert.Contains(t, out, tc.typeLine+"\n")
			if tc.target != "" {
				assert.Contains(t, out, tc.target+"\n")
			} else {
				assert.NotContains(t, out, "Target:")
			}
			var j statusJSON
			require.NoError(t, json.Unmarshal([]byte(ok(t, "stat", "--json", root+"/"+tc.name)), &j))
			assert.Equal(t, root+"/"+tc.name, j.Path)
			assert.Equal(t, tc.jsonType, j.Type)
			assert.Equal(t, tc.targetType, j.TargetType)
			assert.Equal(t, tc.jTgt, j.Target)
			if tc.targetType != "missing" { // a dangling link's size is the link's own
				assert.Equal(t, tc.size, j.Size)
			}
		})
	}
	assert.Contains(t, fails(t, ExitFailure, "stat", root+"/nope"), "nope", "a missing path is still an error")
	assert.Contains(t, ok(t, "stat", "--help"), "targetType")
}

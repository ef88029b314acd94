package cli

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/bigmeta"
)

// jsonLines decodes one JSON object per line.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var o map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &o), line)
		objs = append(objs, o)
	}
	return objs
}

// exact returns the exact bytes of member key of o: its ...Base64 companion
// decoded when there is one, else the member itself.
func exact(t *testing.T, o map[string]any, key string) string {
	t.Helper()
	b64, ok := o[key+"Base64"].(string)
	if !ok {
		s, _ := o[key].(string)
		return s
	}
	b, err := base64.StdEncoding.DecodeString(b64)
	require.NoError(t, err)
	return string(b)
}

// TestJSONNamesRoundTrip: a name that is not valid UTF-8 (a\xffb) shows in
// ls --json and stat --json as encoding/json writes it (with U+FFFD) plus
// nameBase64/pathBase64 with its exact bytes, which given back to the command
// line reach the same file; valid names get no Base64 member.
func TestJSONNamesRoundTrip(t *testing.T) {
	for scheme, root := range map[string]string{"memory": memRoot(t), "file": "file://" + filepath.ToSlash(t.TempDir())} {
		t.Run(scheme, func(t *testing.T) {
			files := map[string]string{"a\xffb": "invalid", "\xff\xfe": "only invalid", "é ok": "valid", "d\xff/f": "below"}
			for name, data := range files {
				writeTo(t, root+"/"+name, data)
			}
			for _, args := range [][]string{{"ls", "--json", root}, {"ls", "-R", "--json", root}} {
				out := ok(t, args...)
				seen := map[string]bool{}
				for _, o := range jsonLines(t, out) {
					name, path := exact(t, o, "name"), exact(t, o, "path")
					seen[name] = true
					assert.Equal(t, root+"/"+name, path, "path and name agree byte for byte")
					shown, _ := o["name"].(string)
					if _, hasB64 := o["nameBase64"]; strings.ContainsRune(shown, '\uFFFD') {
						assert.True(t, hasB64, "%q: nameBase64 for an invalid name", shown)
						assert.Contains(t, o, "pathBase64")
					} else {
						assert.False(t, hasB64, "%q: no nameBase64 for a valid name", shown)
						assert.NotContains(t, o, "pathBase64")
					}
					if o["type"] == "dir" {
						continue
					}
					assert.Equal(t, files[name], ok(t, "cat", path), "the exact path %q reaches its file", path)
					assert.Equal(t, files[name], ok(t, "cat", root+"/"+name), "the exact name %q reaches its file", name)
					st := jsonLines(t, ok(t, "stat", "--json", path))[0]
					assert.Equal(t, path, exact(t, st, "path"), "stat --json gives the exact path back")
					assert.NotContains(t, st, "name")
				}
				assert.True(t, seen["a\xffb"] && seen["\xff\xfe"] && seen["é ok"] && seen["d\xff"], "%q lists every name: %v", args, seen)
				if args[1] == "-R" {
					assert.True(t, seen["d\xff/f"], "ls -R names the file below as d\\xff/f")
				}
			}
		})
	}
}

// TestInspectJSONNamesRoundTrip: checkpoints inspect --json carries the exact
// bytes of its paths when they are not valid UTF-8 (a checkpoint under a
// directory named job\xff), and the decoded paths reach the files.
func TestInspectJSONNamesRoundTrip(t *testing.T) {
	chk, _ := bigmeta.Write(t, 3)
	dir := filepath.Join(filepath.Dir(chk), "job\xff")
	require.NoError(t, os.Mkdir(dir, 0o755))
	moved := filepath.Join(dir, "chk-1")
	require.NoError(t, os.Rename(chk, moved))
	state := fmt.Sprintf("%036d", 0) // the first subtask's relative state file
	require.NoError(t, os.WriteFile(filepath.Join(moved, state), []byte("state"), 0o644))
	uri := "file://" + filepath.ToSlash(moved)

	out := ok(t, "checkpoints", "inspect", "--json", uri)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, uri+"/_metadata", exact(t, doc, "path"))
	assert.Equal(t, uri+"/_metadata", exact(t, doc, "metadataPath"))
	assert.Equal(t, uri, exact(t, doc, "pointer"))
	assert.Contains(t, ok(t, "stat", exact(t, doc, "metadataPath")), "Type:        file")

	files, _ := doc["files"].([]any)
	require.Len(t, files, 3)
	first, _ := files[0].(map[string]any)
	assert.Equal(t, uri+"/"+state, exact(t, first, "path"))
	assert.Equal(t, "state", ok(t, "cat", exact(t, first, "path")), "the decoded path reaches the state file")

	ops, _ := doc["operators"].([]any)
	require.Len(t, ops, 1)
	subtasks, _ := ops[0].(map[string]any)["subtasks"].([]any)
	require.Len(t, subtasks, 3)
	handles, _ := subtasks[0].(map[string]any)["handles"].([]any)
	require.NotEmpty(t, handles)
	rel, _ := handles[0].(map[string]any)
	assert.Equal(t, uri+"/"+state, exact(t, rel, "path"))
	assert.NotContains(t, rel, "relativePathBase64", "the relative name is valid UTF-8")
	assert.Equal(t, state, rel["relativePath"])
}

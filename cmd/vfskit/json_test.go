package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schema describes a JSON object as a command's help documents it: each
// member's name ("name?" when it may be absent) and what its value is:
// "string", "number", "bool", "number|null", "object" (any object),
// "[string]", a nested schema, or []schema{s} (an array of objects s).
type schema map[string]any

// check reports every way v departs from s, under the JSON path at.
func (s schema) check(at string, v any) []string {
	obj, ok := v.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s: %T, want an object", at, v)}
	}
	var bad []string
	for name, spec := range s {
		key, optional := strings.CutSuffix(name, "?")
		val, there := obj[key]
		if !there {
			if !optional {
				bad = append(bad, fmt.Sprintf("%s.%s: missing", at, key))
			}
			continue
		}
		bad = append(bad, checkValue(at+"."+key, spec, val)...)
	}
	for key := range obj {
		if _, ok := s[key]; !ok {
			if _, ok := s[key+"?"]; !ok {
				bad = append(bad, fmt.Sprintf("%s.%s: not in the documented schema", at, key))
			}
		}
	}
	return bad
}

func checkValue(at string, spec, val any) []string {
	kind := func(v any) string {
		switch v.(type) {
		case string:
			return "string"
		case float64:
			return "number"
		case bool:
			return "bool"
		case nil:
			return "null"
		case map[string]any:
			return "object"
		}
		return "array"
	}
	switch spec := spec.(type) {
	case schema:
		return spec.check(at, val)
	case []schema:
		arr, ok := val.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %s, want an array", at, kind(val))}
		}
		var bad []string
		for i, e := range arr {
			bad = append(bad, spec[0].check(fmt.Sprintf("%s[%d]", at, i), e)...)
		}
		return bad
	case string:
		if spec == "[string]" {
			arr, ok := val.([]any)
			if !ok {
				return []string{fmt.Sprintf("%s: %s, want an array of strings", at, kind(val))}
			}
			for i, e := range arr {
				if kind(e) != "string" {
					return []string{fmt.Sprintf("%s[%d]: %s, want a string", at, i, kind(e))}
				}
			}
			return nil
		}
		if !slices.Contains(strings.Split(spec, "|"), kind(val)) {
			return []string{fmt.Sprintf("%s: %s, want %s", at, kind(val), spec)}
		}
	}
	return nil
}

// The schemas of every --json output, as the commands' help documents them
// (pathBase64 and the other ...Base64 members come with names that are not
// valid UTF-8).
var (
	entrySchema = schema{"path": "string", "pathBase64?": "string", "name": "string", "nameBase64?": "string",
		"type": "string", "size": "number", "modTime?": "string"}
	statSchema = schema{"path": "string", "pathBase64?": "string", "type": "string", "size": "number", "modTime?": "string",
		"fileSystem": "string", "kind": "string", "target?": "string", "targetType?": "string"}
	skippedSchema = []schema{{"path": "string", "pathBase64?": "string", "reason": "string"}}
	listSchema    = schema{"dir": "string", "skipped": skippedSchema, "snapshots": []schema{{
		"path": "string", "pathBase64?": "string", "job?": "string", "type": "string", "id": "number|null",
		"completed": "bool", "hasMetadata": "bool", "error?": "string", "format?": "string", "version?": "number",
		"size": "number", "files": "number", "modTime?": "string", "link?": "bool"}}}
	verifySchema = schema{"path": "string", "ok": "bool", "skipped": skippedSchema, "results": []schema{{
		"path": "string", "ok": "bool", "format?": "string", "version?": "number", "checkpointId": "number",
		"files": "number", "error?": "string",
		"problems": []schema{{"path": "string", "problem": "string", "recorded?": "string"}}}}}
	auditSchema = schema{"jobDir": "string", "files": "number", "bytes": "number", "completed": "number",
		"referenced": "number", "referencedBytes": "number", "metadataFiles": "number", "metadataBytes": "number", "missing": []schema{{"path": "string", "problem": "string"}},
		"orphans":     []schema{{"path": "string", "size": "number", "deletable": "bool", "reason?": "string"}},
		"orphanBytes": "number", "deletableBytes": "number", "dryRun": "bool", "deleted": "[string]"}
	gcSchema = schema{"dir": "string", "dryRun": "bool", "retain": "number", "removed": "number", "kept": "number",
		"jobs": []schema{{"dir": "string", "checkpoints": []schema{{"path": "string", "id": "number", "size": "number",
			"action": "string", "reason?": "string", "leftover?": "bool", "outside?": "[string]", "left?": "[string]", "special?": "[string]"}}}}}
	inspectSchema = schema{"path": "string", "pointer": "string", "metadataPath": "string", "metadataSize": "number",
		"format": "string", "version": "number", "checkpointId": "number", "type": "string", "savepointFormat": "string",
		"savepoint": "bool", "jobId?": "string", "timestamp?": "string", "stateSize": "number",
		"handleCounts": "object", "inlineBytes": "number",
		"files": []schema{{"path": "string", "reference": "string", "size": "number", "present": "bool|null", "problem?": "string"}},
		"operators": []schema{{"id": "string", "uid": "string", "name": "string", "parallelism": "number",
			"maxParallelism": "number", "subtaskStates": "number", "coordinatorState": "bool",
			"operatorStateNames": "[string]", "keyedSubtasks": "number",
			"subtasks": []schema{{"index": "number", "handles": []schema{{"kind": "string", "size": "number",
				"path?": "string", "relativePath?": "string", "scope?": "string", "name?": "string"}}}}}}}
)

// TestJSONOutputs runs every command that has --json in the built binary, on
// the checkpoints the demo writes, and parses its standard output back: each
// document (or each line, for ls and stat) must have every member its help
// documents, with the documented kind of value, and nothing else; and the
// values must say what is there.
func TestJSONOutputs(t *testing.T) {
	bin := buildVfskit(t)
	work := t.TempDir()
	run := runner(t, bin, work, nil)
	const jobID = "00112233445566778899aabbccddeeff"
	base := "file://" + filepath.ToSlash(filepath.Join(work, "ckpt"))
	job := base + "/" + jobID
	_, stderr, code := run("demo", "--records", "30000", "-k", "5000", "--rate", "0", "--storage", "fs",
		"--job-id", jobID, "--checkpoint-dir", base)
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.Symlink("ckpt", filepath.Join(work, "link")))
	require.NoError(t, os.MkdirAll(filepath.Join(work, "ckpt", "notes"), 0o755))

	for _, row := range []struct {
		args  []string
		lines bool // one document per line (ls, stat), not one document
		s     schema
		check func(t *testing.T, docs []map[string]any)
	}{
		{args: []string{"ls", "--json", job}, lines: true, s: entrySchema, check: func(t *testing.T, docs []map[string]any) {
			var names []any
			for _, d := range docs {
				names = append(names, d["name"])
				assert.Equal(t, "dir", d["type"])
			}
			assert.Equal(t, []any{"chk-1", "chk-2", "chk-3", "chk-4", "chk-5"}, names)
		}},
		{args: []string{"ls", "--json", "-R", job + "/chk-5"}, lines: true, s: entrySchema, check: func(t *testing.T, docs []map[string]any) {
			require.Len(t, docs, 1)
			assert.Equal(t, "_metadata", docs[0]["name"])
			assert.Equal(t, "file", docs[0]["type"])
			assert.Positive(t, docs[0]["size"])
		}},
		{args: []string{"stat", "--json", job + "/chk-5/_metadata", job, "link"}, lines: true, s: statSchema, check: func(t *testing.T, docs []map[string]any) {
			require.Len(t, docs, 3)
			assert.Equal(t, []any{"file", "dir", "symlink"}, []any{docs[0]["type"], docs[1]["type"], docs[2]["type"]})
			assert.Equal(t, "dir", docs[2]["targetType"])
			assert.Equal(t, "FileSystem", docs[0]["kind"])
		}},
		{args: []string{"checkpoints", "list", "--json", base}, s: listSchema, check: func(t *testing.T, docs []map[string]any) {
			snaps := docs[0]["snapshots"].([]any)
			completed := 0
			for _, s := range snaps {
				if s.(map[string]any)["completed"] == true {
					completed++
				}
			}
			assert.Equal(t, 6, completed, "5 checkpoints and the savepoint")
			var skipped []any
			for _, s := range docs[0]["skipped"].([]any) {
				skipped = append(skipped, s.(map[string]any)["path"])
			}
			assert.Contains(t, skipped, base+"/notes")
		}},
		{args: []string{"checkpoints", "verify", "--json", job}, s: verifySchema, check: func(t *testing.T, docs []map[string]any) {
			assert.Equal(t, true, docs[0]["ok"])
			assert.Len(t, docs[0]["results"], 5)
		}},
		{args: []string{"checkpoints", "audit", "--json", job}, s: auditSchema, check: func(t *testing.T, docs []map[string]any) {
			assert.Equal(t, 5.0, docs[0]["completed"])
			assert.Equal(t, true, docs[0]["dryRun"])
			assert.Equal(t, job, docs[0]["jobDir"])
		}},
		{args: []string{"checkpoints", "gc", "--json", "--dry-run", "--retain", "2", job}, s: gcSchema, check: func(t *testing.T, docs []map[string]any) {
			assert.Equal(t, 3.0, docs[0]["removed"])
			assert.Equal(t, 2.0, docs[0]["kept"])
			assert.Equal(t, true, docs[0]["dryRun"])
		}},
		{args: []string{"checkpoints", "inspect", "--json", job + "/chk-5"}, s: inspectSchema, check: func(t *testing.T, docs []map[string]any) {
			assert.Equal(t, 5.0, docs[0]["checkpointId"])
			assert.Equal(t, jobID, docs[0]["jobId"])
			assert.NotEmpty(t, docs[0]["operators"])
		}},
	} {
		t.Run(strings.Join(row.args[:2], " "), func(t *testing.T) {
			stdout, stderr, code := run(row.args...)
			require.Equal(t, 0, code, "vfskit %q: %s", row.args, stderr)
			docs := []string{strings.TrimSuffix(stdout, "\n")}
			if row.lines {
				docs = strings.Split(docs[0], "\n")
			}
			var parsed []map[string]any
			for i, d := range docs {
				var v map[string]any
				require.NoError(t, json.Unmarshal([]byte(d), &v), "document %d of vfskit %q: %q", i, row.args, d)
				assert.Empty(t, row.s.check("$", v), "vfskit %q: %s", row.args, d)
				parsed = append(parsed, v)
			}
			row.check(t, parsed)
		})
	}
}

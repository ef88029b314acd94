package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckpointCommandsSayWhatTheyFound runs the built binary's checkpoint
// commands, a row each, over directories a user points them at by mistake
// (empty, holding other files, one checkpoint's directory) and over a job
// whose directory also holds snapshots of other names (a nested savepoint-*,
// a copy named pinned): each says in a sentence what it found, never zero
// counts, and every command finds the same snapshots.
func TestCheckpointCommandsSayWhatTheyFound(t *testing.T) {
	bin := buildVfskit(t)
	work := t.TempDir()
	run := runner(t, bin, work, nil)
	const jobID = "00112233445566778899aabbccddeeff"
	uri := func(rel string) string { return "file://" + filepath.ToSlash(filepath.Join(work, rel)) }
	_, stderr, code := run("demo", "--records", "30000", "-k", "5000", "--rate", "0", "--storage", "fs",
		"--job-id", jobID, "--checkpoint-dir", uri("ckpt"))
	require.Equal(t, 0, code, stderr)
	jobDir := filepath.Join(work, "ckpt", jobID)
	meta, err := os.ReadFile(filepath.Join(jobDir, "chk-1", "_metadata"))
	require.NoError(t, err)
	for _, d := range []string{"pinned", "kept/savepoint-001122-0123456789ab"} {
		require.NoError(t, os.MkdirAll(filepath.Join(jobDir, d), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(jobDir, d, "_metadata"), meta, 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(work, "empty"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(work, "other", "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(work, "other", "notes.txt"), []byte("notes"), 0o644))
	job := uri("ckpt/" + jobID)

	for _, row := range []struct {
		args   []string
		code   int
		stdout string // a regular expression standard output must match
		stderr string // a regular expression standard error must match
	}{
		{args: []string{"list", uri("empty")}, stderr: `^no checkpoints or savepoints in \S+/empty: it holds no directories\n$`},
		{args: []string{"list", uri("other")}, stderr: `skipped \S+/other/sub: no _metadata in it or below it.*\nno checkpoints or savepoints in \S+/other: not a checkpoint directory`},
		{args: []string{"verify", uri("empty")}, code: 1, stderr: `^vfskit: checkpoints verify \S+/empty: not a checkpoint or savepoint directory: it holds no _metadata, nor does any directory in it`},
		{args: []string{"audit", uri("empty")}, stdout: `^nothing to audit in \S+/empty: it holds no files and no checkpoint or savepoint directory`},
		{args: []string{"audit", uri("other")}, stdout: `^no checkpoint or savepoint directory in \S+/other .*so all is kept: 1 file, 5 B\n$`},
		{args: []string{"audit", uri("ckpt")}, code: 1, stderr: `^vfskit: audit \S+/ckpt: a base directory holding job ` + jobID + `: audit one job at a time; expected a job's checkpoints directory \(<base>/<job id>\)\n$`},
		{args: []string{"gc", "--retain", "1", uri("empty")}, stdout: `^nothing to collect: no checkpoints or savepoints in \S+/empty: it holds no directories\n$`},
		{args: []string{"gc", "--retain", "1", job + "/chk-5"}, stdout: `^nothing to collect in \S+/chk-5: it is a checkpoint or savepoint directory`},
		{args: []string{"list", job}, stdout: `(?s)chk-5\n.*/kept/savepoint-001122-0123456789ab\n.*/pinned\n$`},
		{args: []string{"verify", job}, stdout: `(?s)^(OK: [^\n]*\n){7}$`},
		{args: []string{"audit", job}, stdout: `^\S+: 0 state files, .*, and 7 _metadata files, .*; 7 completed checkpoints reference 0 state files .*\ndry run: 0 orphans`},
		{args: []string{"gc", "--retain", "1", "--dry-run", job}, stdout: `(?s)(would remove \S+/chk-\d .*){4}dry run: would remove 4, keep 1\n$`},
	} {
		stdout, stderr, code := run(append([]string{"checkpoints"}, row.args...)...)
		require.Equal(t, row.code, code, "checkpoints %q: stdout %q stderr %q", row.args, stdout, stderr)
		for _, out := range []struct{ got, want string }{{stdout, row.stdout}, {stderr, row.stderr}} {
			if out.want == "" {
				assert.Empty(t, out.got, "checkpoints %q", row.args)
				continue
			}
			assert.Regexp(t, regexp.MustCompile(out.want), out.got, "checkpoints %q", row.args)
		}
		assert.NotRegexp(t, `\b0 (files|completed checkpoints), `, stdout, "checkpoints %q: no zero counts", row.args)
		assert.NotContains(t, stdout+stderr, "file does not exist:", "checkpoints %q", row.args)
		assert.LessOrEqual(t, strings.Count(stdout, "/pinned"), 1, "checkpoints %q: a snapshot named once", row.args)
	}
}

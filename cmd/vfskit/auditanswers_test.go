package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAuditAnswers runs the built binary's checkpoints audit on a job the
// demo wrote, then damages a file a completed checkpoint references: audit
// exits 1 for it (as verify does), counts state and _metadata files apart,
// and follows the delete convention (--dry-run reports only, even beside
// --delete; it is not on by default).
func TestAuditAnswers(t *testing.T) {
	bin := buildVfskit(t)
	work := t.TempDir()
	run := runner(t, bin, work, nil)
	base := filepath.Join(work, "ckpt")
	job := "00112233445566778899aabbccddeeff"
	_, stderr, code := run("demo", "--records", "30000", "-k", "5000", "--rate", "0", "--storage", "fs", "--file-state-threshold", "1",
		"--job-id", job, "--checkpoint-dir", "file://"+base)
	require.Equal(t, 0, code, stderr)
	jobDir := "file://" + filepath.Join(base, job)

	out, stderr, code := run("checkpoints", "audit", jobDir)
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `: \d+ state files?, [^,]+, and \d+ _metadata files?, `, out)

	help, _, _ := run("checkpoints", "audit", "--help")
	assert.NotContains(t, help, "(default true)", "no --dry-run that defaults to true beside --delete")

	// A state file of the newest completed checkpoint, cut short.
	var victim string
	require.NoError(t, filepath.WalkDir(filepath.Join(base, job), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != "_metadata" && victim == "" && strings.Contains(p, "chk-") {
			victim = p
		}
		return err
	}))
	require.NotEmpty(t, victim)
	out, _, _ = run("checkpoints", "verify", "file://"+filepath.Dir(victim))
	require.NoError(t, os.WriteFile(victim, []byte("x"), 0o644))
	_, _, vcode := run("checkpoints", "verify", "file://"+filepath.Dir(victim))
	require.Equal(t, 1, vcode, "verify exits 1 for the damaged checkpoint: %s", out)

	out, stderr, code = run("checkpoints", "audit", jobDir)
	assert.Equal(t, 1, code, "audit exits 1 as verify does: %s %s", out, stderr)
	assert.Contains(t, out, "referenced but")
	assert.Contains(t, stderr, "referenced files missing, of the wrong size or not checkable")
	_, stderr, code = run("checkpoints", "audit", "--json", jobDir)
	assert.Equal(t, 1, code, stderr)

	before, err := os.ReadDir(filepath.Join(base, job))
	require.NoError(t, err)
	_, _, _ = run("checkpoints", "audit", "--delete", "--dry-run", jobDir)
	after, err := os.ReadDir(filepath.Join(base, job))
	require.NoError(t, err)
	assert.Equal(t, len(before), len(after), "--dry-run beside --delete deletes nothing")
}

// TestInspectJobDir runs checkpoints inspect on the job directory the demo's
// last line names: it shows the newest completed checkpoint that list shows,
// and says so.
func TestInspectJobDir(t *testing.T) {
	bin := buildVfskit(t)
	work := t.TempDir()
	run := runner(t, bin, work, nil)
	job := "00112233445566778899aabbccddeeff"
	jobDir := "file://" + filepath.Join(work, "ckpt", job)
	out, stderr, code := run("demo", "--records", "30000", "-k", "5000", "--rate", "0", "--storage", "fs",
		"--job-id", job, "--checkpoint-dir", "file://"+filepath.Join(work, "ckpt"))
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "vfskit checkpoints list "+jobDir)

	list, stderr, code := run("checkpoints", "list", "--json", jobDir)
	require.Equal(t, 0, code, stderr)
	var inv struct {
		Snapshots []struct {
			Path      string `json:"path"`
			ID        *int64 `json:"id"`
			Completed bool   `json:"completed"`
		} `json:"snapshots"`
	}
	require.NoError(t, json.Unmarshal([]byte(list), &inv))
	newest, newestPath := int64(-1), ""
	for _, s := range inv.Snapshots {
		if s.Completed && s.ID != nil && *s.ID > newest && strings.Contains(s.Path, "/chk-") {
			newest, newestPath = *s.ID, s.Path
		}
	}
	require.NotEqual(t, int64(-1), newest, list)

	out, stderr, code = run("checkpoints", "inspect", jobDir)
	require.Equal(t, 0, code, stderr)
	first, rest, _ := strings.Cut(out, "\n")
	assert.Equal(t, jobDir+" is a job's directory: its newest completed checkpoint, "+newestPath+":", first)
	assert.True(t, strings.HasPrefix(rest, fmt.Sprintf("Checkpoint %d of job %s\n", newest, job)), out)

	out, stderr, code = run("checkpoints", "inspect", "--json", jobDir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "its newest completed checkpoint, "+newestPath)
	var doc struct {
		CheckpointID int64 `json:"checkpointId"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, newest, doc.CheckpointID)

	// A copy of the newest checkpoint under another chk-N name: list shows
	// the id its _metadata records, as inspect does, and flags the name.
	src := filepath.Join(work, "ckpt", job, fmt.Sprintf("chk-%d", newest))
	meta, err := os.ReadFile(filepath.Join(src, "_metadata"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(work, "ckpt", job, "chk-1000"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(work, "ckpt", job, "chk-1000", "_metadata"), meta, 0o644))
	out, stderr, code = run("checkpoints", "list", jobDir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, fmt.Sprintf("chk-1000 is named chk-1000, but its _metadata records checkpoint %d", newest))
	assert.Regexp(t, fmt.Sprintf(`(?m)^checkpoint\s+%d\s+yes .*/chk-1000$`, newest), out)
}

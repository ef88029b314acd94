package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckpointsFindAnyName checks that list and verify find every
// directory holding a _metadata, whatever its name and depth, name what they
// skipped and why (text and --json), and that the --json documents parse
// back as their help documents them.
func TestCheckpointsFindAnyName(t *testing.T) {
	uri, dir := runDemoOnDisk(t)
	ok(t, "cp", "-r", uri+"/"+testJobID+"/chk-4", uri+"/savepoints/before-upgrade")
	ok(t, "cp", "-r", uri+"/"+testJobID+"/chk-6", uri+"/archive/2026/renamed")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "broken", "sp"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken", "sp", "_metadata"), []byte("not metadata"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "junk", "deeper"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "junk", "deeper", "notes.txt"), []byte("x"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, testJobID, "chk-100"), 0o755)) // in progress

	for _, tc := range []struct {
		args       []string
		wantPaths  []string
		notPaths   []string
		skipped    map[string]string // path → reason part
		code       int
		textInline string
	}{
		{args: []string{"checkpoints", "list"}, code: ExitOK,
			wantPaths: []string{"/savepoints/before-upgrade", "/archive/2026/renamed", "/broken/sp", "/" + testJobID + "/chk-4", "/" + testJobID + "/chk-100"},
			notPaths:  []string{"/junk"},
			skipped:   map[string]string{"/junk": "no _metadata in it or below it"}},
		{args: []string{"checkpoints", "verify"}, code: ExitFailure,
			wantPaths: []string{"/savepoints/before-upgrade", "/archive/2026/renamed", "/" + testJobID + "/chk-4"},
			notPaths:  []string{"/junk", "/" + testJobID + "/chk-100"},
			skipped:   map[string]string{"/junk": "no _metadata in it or below it", "/" + testJobID + "/chk-100": "no _metadata: in progress"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			text := vfskit(t, append(tc.args, uri)...)
			require.Equal(t, tc.code, text.code, text.stderr)
			for p, why := range tc.skipped {
				assert.Contains(t, text.stderr, "skipped "+uri+p+": "+why)
			}
			for _, p := range tc.wantPaths {
				assert.Contains(t, text.stdout+text.stderr, uri+p)
			}

			r := vfskit(t, append(append(tc.args, "--json"), uri)...)
			require.Equal(t, tc.code, r.code, r.stderr)
			var doc struct {
				Dir, Path string
				OK        *bool
				Snapshots []snapshotJSON
				Results   []verifyResultJSON
				Skipped   []skippedJSON
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc), r.stdout)
			require.Equal(t, 1, strings.Count(r.stdout, "\n"), "one document")
			got := map[string]bool{}
			for _, s := range doc.Snapshots {
				got[s.Path] = true
				if s.Path == uri+"/broken/sp" {
					assert.False(t, s.Completed)
					assert.True(t, s.HasMetadata)
					assert.NotEmpty(t, s.Error)
				}
				if s.Path == uri+"/savepoints/before-upgrade" {
					assert.True(t, s.Completed)
					assert.Equal(t, "vfskit", s.Format)
					require.NotNil(t, s.ID)
					assert.Equal(t, int64(4), *s.ID)
				}
			}
			for _, res := range doc.Results {
				got[res.Path] = true
				switch {
				case res.Path == uri+"/broken/sp":
					assert.False(t, res.OK)
					assert.NotEmpty(t, res.Error, "an undecodable _metadata says why")
				default:
					assert.True(t, res.OK, res.Path)
					assert.Positive(t, res.Files)
					assert.Empty(t, res.Problems)
				}
			}
			for _, p := range tc.wantPaths {
				assert.True(t, got[uri+p], "%s found: %v", p, got)
			}
			for _, p := range tc.notPaths {
				assert.False(t, got[uri+p], p)
			}
			skipped := map[string]string{}
			for _, s := range doc.Skipped {
				skipped[s.Path] = s.Reason
			}
			for p, why := range tc.skipped {
				assert.Contains(t, skipped[uri+p], why)
			}
			if doc.OK != nil {
				assert.False(t, *doc.OK, "the broken one fails the whole")
			}
		})
	}
	junk := ok(t, "checkpoints", "list", uri+"/junk")
	assert.Empty(t, junk)
	r := vfskit(t, "checkpoints", "list", uri+"/junk")
	assert.Contains(t, r.stderr, "not a checkpoint directory (no directory in it holds a _metadata; 1 directory skipped, named above)")
}

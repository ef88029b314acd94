package flink_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/cli"
	"github.com/vfskit/vfskit/internal/flinktest"
)

// flinkState is the harness's describe --state: what Flink itself reads of
// each operator state entry.
type flinkState struct {
	Operators []struct {
		ID     string `json:"id"`
		States []struct {
			Name     string `json:"name"`
			Mode     string `json:"mode"`
			Subtasks []struct {
				Index   int      `json:"index"`
				Entries []string `json:"entries"`
			} `json:"subtasks"`
		} `json:"states"`
	} `json:"operators"`
}

// vfskitLocal runs a vfskit command line in process, for file:// only.
func vfskitLocal(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Stdio{Out: &out, Err: &errOut, Terminal: func() bool { return false }})
	require.Equal(t, cli.ExitOK, code, "vfskit %q: %s%s", args, out.String(), errOut.String())
	return out.String()
}

// vfskitStates is checkpoints state --json in statesOf's form (each entry's
// bytes).
func vfskitStates(t *testing.T, uri string) map[string][]string {
	var raw struct {
		Operators []struct {
			ID     string `json:"id"`
			States []struct {
				Name     string `json:"name"`
				Mode     string `json:"mode"`
				Raw      bool   `json:"raw"`
				Subtasks []struct {
					Index   int `json:"index"`
					Entries []struct {
						Bytes string `json:"bytes"`
					} `json:"entries"`
				} `json:"subtasks"`
			} `json:"states"`
		} `json:"operators"`
	}
	require.NoError(t, json.Unmarshal([]byte(vfskitLocal(t, "checkpoints", "state", "--json", uri)), &raw))
	out := map[string][]string{}
	for _, op := range raw.Operators {
		for _, s := range op.States {
			require.False(t, s.Raw, "the reference job has no raw operator state")
			for _, sub := range s.Subtasks {
				var es []string
				for _, e := range sub.Entries {
					es = append(es, e.Bytes)
				}
				out[fmt.Sprintf("%s/%s/%s/%d", op.ID, s.Name, s.Mode, sub.Index)] = es
			}
		}
	}
	return out
}

func flinkStates(t *testing.T, h *flinktest.Harness, uri string) map[string][]string {
	out, stderr, err := h.Run("describe", uri, "--state")
	require.NoError(t, err, "flink %s describe --state %s: %s", h.Version, uri, stderr)
	var d flinkState
	require.NoError(t, json.Unmarshal([]byte(out), &d), out)
	m := map[string][]string{}
	for _, op := range d.Operators {
		for _, s := range op.States {
			for _, sub := range s.Subtasks {
				m[fmt.Sprintf("%s/%s/%s/%d", op.ID, s.Name, s.Mode, sub.Index)] = append([]string(nil), sub.Entries...)
			}
		}
	}
	return m
}

// TestFlinkSourcePositions: the reference job reading a FLIP-27 number
// sequence source writes checkpoints and a savepoint; vfskit's operator
// state entries are exactly what Flink reads; set-offsets moves every split,
// and Flink, restoring from the copy, resumes each split exactly there.
func TestFlinkSourcePositions(t *testing.T) {
	script := flinktest.Script(t)
	for _, version := range flinktest.Versions(t, script) {
		t.Run(version, func(t *testing.T) {
			h := flinktest.New(t, script, version)
			for _, args := range [][]string{
				{"--backend", "hashmap", "--savepoint", "canonical"},
				{"--backend", "rocksdb", "--unaligned", "--savepoint", "native"},
			} {
				t.Run(args[1], func(t *testing.T) { sourcePositions(t, h, args) })
			}
		})
	}
}

func sourcePositions(t *testing.T, h *flinktest.Harness, args []string) {
	base := fileURI(filepath.Join(t.TempDir(), "sequence"))
	w := h.Write(t, append([]string{"--dir", base, "--checkpoints", "2", "--source", "sequence"}, args...)...)
	require.NotNil(t, w.Savepoint)
	savepoint := *w.Savepoint
	for _, uri := range []string{w.Latest(), savepoint} {
		flink := flinkStates(t, h, uri)
		got := vfskitStates(t, uri)
		require.NotEmpty(t, flink)
		assert.Equal(t, flink, got, "operator state of %s: vfskit's entries against Flink's", uri)
		var sources int
		for k := range flink {
			if strings.Contains(k, "/SourceReaderState/") {
				sources++
			}
		}
		assert.Positive(t, sources, "the savepoint holds the sequence source's splits")
	}

	// Move every split: a third of the way from where it is to its end.
	var pos struct {
		Positions []struct {
			Kind     string `json:"kind"`
			Split    string `json:"split"`
			Subtask  int    `json:"subtask"`
			Position int64  `json:"position"`
			To       int64  `json:"to"`
		} `json:"positions"`
	}
	require.NoError(t, json.Unmarshal([]byte(vfskitLocal(t, "checkpoints", "offsets", "--json", savepoint)), &pos))
	require.GreaterOrEqual(t, len(pos.Positions), 2, "at least two splits in the savepoint")
	want := map[string]int64{}
	set := []string{"checkpoints", "set-offsets", savepoint, base + "/moved"}
	for _, p := range pos.Positions {
		require.Equal(t, "sequence", p.Kind)
		to := p.Position + (p.To-p.Position)/3
		want[p.Split] = to
		set = append(set, "--split", fmt.Sprintf("%s=%d", p.Split, to))
	}
	vfskitLocal(t, set...)
	out, stderr, err := h.Run("restore", "--from", base+"/moved", "--print-resume")
	require.NoError(t, err, "flink %s restore --print-resume: %s", h.Version, stderr)
	var resumed struct {
		Splits []struct {
			ID    string `json:"id"`
			First int64  `json:"first"`
		} `json:"splits"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &resumed), out)
	got := map[string]int64{}
	for _, s := range resumed.Splits {
		got[s.ID] = s.First
	}
	assert.Equal(t, want, got, "where Flink resumed each split, against where set-offsets put it")
	ids := make([]string, 0, len(got))
	for id := range got {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	t.Logf("Flink %s resumed splits %v at %v", h.Version, ids, got)
}

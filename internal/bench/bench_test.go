package bench_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/bench"
)

func TestMedian(t *testing.T) {
	assert.Zero(t, bench.Median(nil))
	assert.Equal(t, 2.0, bench.Median([]float64{3, 1, 2}))
	assert.Equal(t, 3.0, bench.Median([]float64{4, 1, 3, 2}))
}

// Rounds alternate which side runs first, and every round runs both.
func TestInterleaveAlternates(t *testing.T) {
	var order []string
	s, err := bench.Interleave(4,
		func() error { order = append(order, "ours"); return nil },
		func() error { order = append(order, "base"); return nil })
	require.NoError(t, err)
	assert.Equal(t, []string{"ours", "base", "base", "ours", "ours", "base", "base", "ours"}, order)
	assert.Equal(t, 4, s.Rounds)
	assert.Positive(t, s.Ratio)
}

func TestInterleaveStopsAtTheFirstError(t *testing.T) {
	boom := errors.New("boom")
	runs := 0
	_, err := bench.Interleave(5, func() error { runs++; return boom }, func() error { runs++; return nil })
	require.ErrorIs(t, err, boom)
	assert.Equal(t, 1, runs)
}

// Before runs before every timed run of either side, and its error ends the
// round before the side runs.
func TestRatiosBefore(t *testing.T) {
	var order []string
	r := bench.Ratios{Before: func() error { order = append(order, "before"); return nil }}
	side := func(name string) func() error {
		return func() error { order = append(order, name); return nil }
	}
	for i := range 2 {
		require.NoError(t, r.Round(i, side("ours"), side("base")))
	}
	assert.Equal(t, []string{"before", "ours", "before", "base", "before", "base", "before", "ours"}, order)
	assert.Equal(t, 2, r.Summary().Rounds)

	boom := errors.New("boom")
	order = nil
	r = bench.Ratios{Before: func() error { order = append(order, "before"); return boom }}
	require.ErrorIs(t, r.Round(0, side("ours"), side("base")), boom)
	assert.Equal(t, []string{"before"}, order)
	assert.Zero(t, r.Summary().Rounds)
}

func TestTableAndJSON(t *testing.T) {
	results := []bench.Result{
		{Name: "fast", Ours: 2, Baseline: 1, Unit: "MiB/s", Ratio: 2, CPURatio: 1.5, Target: "ratio ≥ 1", Met: true, Rounds: 3},
		{Name: "slow", Ours: 21, Unit: "requests", Target: "≤ 20", Requests: map[string]int{"ListObjectsV2": 10, "DeleteObjects": 11}},
	}
	var b strings.Builder
	require.NoError(t, bench.Table(&b, results))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 4)
	assert.Equal(t, "| fast | 2.00 MiB/s | 1.00 MiB/s | 2.00 (1.50) | ratio ≥ 1 | yes |  |  |", lines[2])
	assert.Equal(t, "| slow | 21.0 requests | — | — | ≤ 20 | **no** | 21 |  |", lines[3])

	path := filepath.Join(t.TempDir(), "bench", "results.json")
	require.NoError(t, bench.WriteJSON(path, results))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var back []bench.Result
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, results, back)
}

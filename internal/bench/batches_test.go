package bench_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/bench"
)

// Each round runs every side a batch at a time, starting from the next side
// each round, and records one time per side.
func TestBatchesRotate(t *testing.T) {
	var order []string
	side := func(name string) func() error {
		return func() error { order = append(order, name); return nil }
	}
	b := bench.Batches{Batch: 2}
	for i := range 3 {
		require.NoError(t, b.Round(i, side("a"), side("b"), side("c")))
	}
	assert.Equal(t, []string{"a", "a", "b", "b", "c", "c", "b", "b", "c", "c", "a", "a", "c", "c", "a", "a", "b", "b"}, order)
	assert.Equal(t, 3, b.Rounds())
	require.Len(t, b.NS, 3)
	for _, ns := range b.NS {
		assert.Len(t, ns, 3)
	}
}

func TestBatchesMedians(t *testing.T) {
	b := bench.Batches{NS: [][]float64{{100, 200, 100}, {110, 300, 120}}}
	assert.InDelta(t, 1.2, b.MedianRatio(1, 0), 1e-9) // ratios 1.1, 1.5, 1.2
	assert.InDelta(t, 20, b.MedianDiff(1, 0), 1e-9)   // diffs 10, 100, 20
	assert.Equal(t, 120.0, b.Median(1))
	assert.Equal(t, []float64{110, 300, 120}, b.NS[1], "Median leaves the samples in order")
	assert.Zero(t, b.Median(5), "no such side")
	assert.Zero(t, (&bench.Batches{}).Rounds())
}

// A slower side shows as a ratio above 1, the same side twice as about 1.
func TestBatchesSeeADifference(t *testing.T) {
	b := bench.Batches{Batch: 4}
	fast := func() error { return nil }
	slow := func() error { time.Sleep(200 * time.Microsecond); return nil }
	for i := range 9 {
		require.NoError(t, b.Round(i, fast, slow, fast))
	}
	assert.Greater(t, b.MedianRatio(1, 0), 10.0)
	assert.Greater(t, b.MedianDiff(1, 0), 100_000.0)
}

func TestBatchesStopAtTheFirstError(t *testing.T) {
	boom := errors.New("boom")
	runs := 0
	b := bench.Batches{Batch: 3}
	err := b.Round(0, func() error { runs++; return boom }, func() error { runs++; return nil })
	require.ErrorIs(t, err, boom)
	assert.Equal(t, 1, runs)
	assert.Zero(t, b.Rounds(), "nothing recorded of a failed round")
}

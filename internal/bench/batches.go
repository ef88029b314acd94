package bench

import (
	"slices"
	"time"
)

// Batches times the sides of a measure of short calls (a few hundred ns,
// where a garbage collection per run, as Ratios does, would dwarf them): in
// every round, a batch of calls of each side in turn, starting with another
// side from round to round, and keeps each side's time per call in every
// round. Summarise with the medians of per-round ratios (MedianRatio): a batch
// that a busy machine descheduled moves a ratio of sums, not a median. Give
// the baseline twice (as the first and the last side) and the ratio of the two
// shows what the measure resolves on this machine.
type Batches struct {
	// Batch is how many calls each side makes in a round (1 when zero).
	Batch int
	// NS holds, for each side, its time per call in ns in every round.
	NS [][]float64
}

// Round runs round i: Batch calls of each of sides, in turn, starting with
// side i modulo len(sides). It stops at the first error and then records
// nothing of the round.
func (b *Batches) Round(i int, sides ...func() error) error {
	n := max(b.Batch, 1)
	ns := make([]float64, len(sides))
	for k := range sides {
		s := (i + k) % len(sides)
		start := time.Now()
		for range n {
			if err := sides[s](); err != nil {
				return err
			}
		}
		ns[s] = float64(time.Since(start).Nanoseconds()) / float64(n)
	}
	for len(b.NS) < len(sides) {
		b.NS = append(b.NS, nil)
	}
	for s, v := range ns {
		b.NS[s] = append(b.NS[s], v)
	}
	return nil
}

// Rounds returns how many rounds were recorded.
func (b *Batches) Rounds() int {
	if len(b.NS) == 0 {
		return 0
	}
	return len(b.NS[0])
}

// Median returns the median time per call of side s in ns (0 without rounds).
func (b *Batches) Median(s int) float64 { return Median(slices.Clone(b.side(s))) }

// MedianRatio returns the median over rounds of side s's time ÷ side base's.
func (b *Batches) MedianRatio(s, base int) float64 {
	return b.medianOf(s, base, func(x, y float64) float64 { return x / y })
}

// MedianDiff returns the median over rounds of side s's time − side base's,
// in ns per call.
func (b *Batches) MedianDiff(s, base int) float64 {
	return b.medianOf(s, base, func(x, y float64) float64 { return x - y })
}

func (b *Batches) medianOf(s, base int, f func(x, y float64) float64) float64 {
	xs, ys := b.side(s), b.side(base)
	v := make([]float64, min(len(xs), len(ys)))
	for i := range v {
		v[i] = f(xs[i], ys[i])
	}
	return Median(v)
}

func (b *Batches) side(s int) []float64 {
	if s < 0 || s >= len(b.NS) {
		return nil
	}
	return b.NS[s]
}

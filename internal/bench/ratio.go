package bench

import (
	"runtime"
	"slices"
	"time"
)

// Sample is the wall and CPU time of one timed run.
type Sample struct{ Wall, CPU time.Duration }

// Timer is the part of *testing.B that Ratios pauses while it collects garbage
// between runs (nil outside a Go benchmark).
type Timer interface {
	StopTimer()
	StartTimer()
}

// Ratios times ours and a baseline alternately, one run each per Round, so the
// noise of a shared machine hits both alike, and summarises the rounds by their
// medians. Each run starts after a garbage collection, so neither side pays for
// the other's garbage. The zero value is ready to use.
type Ratios struct {
	// Timer, when set, is stopped during the garbage collections.
	Timer Timer
	// Before, when set, runs untimed before every timed run of either side
	// (before its garbage collection), so that each side starts from the same
	// state, such as a disk without the previous run's files. An error from it
	// ends the round as an error of the run would.
	Before func() error

	ratios, cpuRatios, ours, base []float64
}

// Summary is what Ratios measured: the medians over rounds of baseline time ÷
// our time (above 1: ours is faster), of the same for process CPU time (which
// other processes' load does not distort), and of each side's wall time.
type Summary struct {
	Rounds          int
	Ratio, CPURatio float64
	Ours, Baseline  time.Duration
}

// Round runs ours and baseline once each, ours first on even i and the
// baseline first on odd i, and records their times. It stops at the first
// error, recording nothing.
func (r *Ratios) Round(i int, ours, baseline func() error) error {
	var o, a Sample
	var err error
	if i%2 == 0 {
		if o, err = r.timed(ours); err == nil {
			a, err = r.timed(baseline)
		}
	} else {
		if a, err = r.timed(baseline); err == nil {
			o, err = r.timed(ours)
		}
	}
	if err != nil {
		return err
	}
	r.ratios = append(r.ratios, float64(a.Wall)/float64(max(o.Wall, 1)))
	r.cpuRatios = append(r.cpuRatios, float64(a.CPU)/float64(max(o.CPU, 1)))
	r.ours = append(r.ours, float64(o.Wall))
	r.base = append(r.base, float64(a.Wall))
	return nil
}

// Summary returns the medians of the rounds recorded so far (zeros without any).
func (r *Ratios) Summary() Summary {
	return Summary{
		Rounds:   len(r.ratios),
		Ratio:    Median(r.ratios),
		CPURatio: Median(r.cpuRatios),
		Ours:     time.Duration(Median(r.ours)),
		Baseline: time.Duration(Median(r.base)),
	}
}

// Interleave runs n rounds of ours and baseline (see Ratios.Round).
func Interleave(n int, ours, baseline func() error) (Summary, error) {
	var r Ratios
	for i := range n {
		if err := r.Round(i, ours, baseline); err != nil {
			return Summary{}, err
		}
	}
	return r.Summary(), nil
}

func (r *Ratios) timed(f func() error) (Sample, error) {
	if r.Timer != nil {
		r.Timer.StopTimer()
	}
	if r.Before != nil {
		if err := r.Before(); err != nil {
			return Sample{}, err
		}
	}
	runtime.GC()
	if r.Timer != nil {
		r.Timer.StartTimer()
	}
	start, cpu := time.Now(), CPUTime()
	err := f()
	return Sample{time.Since(start), CPUTime() - cpu}, err
}

// Median returns the median of v (the upper one for an even count; 0 for an
// empty v). It sorts v in place.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

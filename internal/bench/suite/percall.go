package suite

import (
	"runtime"
	"testing"
	"time"

	"github.com/vfskit/vfskit/internal/bench"
)

// perCall runs f under testing.Benchmark rounds times and returns the median
// time per call in ns and the largest allocation count per call seen.
func perCall(rounds int, f func() error) (ns float64, allocs int64, err error) {
	var times []float64
	for range rounds {
		r := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if e := f(); e != nil {
					err = e
					b.SkipNow()
				}
			}
		})
		if err != nil {
			return 0, 0, err
		}
		times = append(times, float64(r.T.Nanoseconds())/float64(max(r.N, 1)))
		allocs = max(allocs, r.AllocsPerOp())
	}
	return bench.Median(times), allocs, nil
}

// counted runs f after a garbage collection and returns its wall time and
// how many heap allocations it made.
func counted(f func() error) (elapsed time.Duration, mallocs uint64, err error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	err = f()
	elapsed = time.Since(start)
	runtime.ReadMemStats(&after)
	return elapsed, after.Mallocs - before.Mallocs, err
}

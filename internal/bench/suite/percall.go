package suite

import (
	"runtime"
	"testing"
	"time"

	"github.com/vfskit/vfskit/internal/bench"
)

// perCall runs f under testing.Benchmark rounds times and returns the medians
// of the wall time and of the process CPU time per call in ns (CPU time is
// what the load of other processes distorts least), and the largest
// allocation count per call seen.
func perCall(rounds int, f func() error) (ns, cpuNs float64, allocs int64, err error) {
	var times, cpus []float64
	for range rounds {
		var cpu float64
		r := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			start := bench.CPUTime()
			for b.Loop() {
				if e := f(); e != nil {
					err = e
					b.SkipNow()
				}
			}
			cpu = float64(bench.CPUTime()-start) / float64(max(b.N, 1))
		})
		if err != nil {
			return 0, 0, 0, err
		}
		times = append(times, float64(r.T.Nanoseconds())/float64(max(r.N, 1)))
		cpus = append(cpus, cpu)
		allocs = max(allocs, r.AllocsPerOp())
	}
	return bench.Median(times), bench.Median(cpus), allocs, nil
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

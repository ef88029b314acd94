//go:build unix

package bench

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time the process has used so far (user and system,
// every thread, the garbage collector's included), which other processes on a
// busy machine do not inflate the way they inflate wall time.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

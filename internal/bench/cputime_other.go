//go:build !unix

package bench

import "time"

// CPUTime is not measured on this platform: it returns 0, and CPU ratios read 0.
func CPUTime() time.Duration { return 0 }

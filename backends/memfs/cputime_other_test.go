//go:build !unix

package memfs_test

import "time"

// cpuTime is not measured on this platform: the cpu-ratio metric reads NaN.
func cpuTime() time.Duration { return 0 }

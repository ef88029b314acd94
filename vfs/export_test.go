package vfs

// SetRangeSize sets the size of the ranges of a copy in parallel ranges
// (16 MiB), so that tests copy small files that way; it returns a function
// that restores it.
func SetRangeSize(n int64) (restore func()) {
	old := rangeSize
	rangeSize = n
	return func() { rangeSize = old }
}

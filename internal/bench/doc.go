// Package bench is the measuring machinery of vfskit's benchmarks (make bench):
// every measure runs vfskit and its baseline in the same process, interleaved,
// for several rounds, and reports the median ratio, so that the noise of a
// shared machine cancels (Ratios, Interleave; Batches for calls of a few
// hundred ns). Result records one measure as
// `make bench` reports it: a Markdown table (Table) and bench/results.json
// (WriteJSON). The measures themselves are in internal/bench/suite; the driver
// is cmd/vfsbench.
package bench

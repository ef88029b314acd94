// Package suite holds the measures of `make bench` (bench/README.md's table): each
// runs vfskit and its baseline in one process, interleaved, for Config.Rounds
// rounds, and returns a bench.Result. cmd/vfsbench runs them all; a smoke test
// runs them with tiny sizes under `make test`.
package suite

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/vfskit/vfskit/internal/bench"
	"github.com/vfskit/vfskit/internal/s3test"
)

const (
	kib = 1 << 10
	mib = 1 << 20
)

// Config sizes the measures. Default returns make bench's sizes; Tiny the smoke
// test's.
type Config struct {
	// Rounds is how many interleaved rounds each timed measure runs.
	Rounds int
	// Big is the size of the large sequential file (local, memory, S3), and
	// Chunk the size of each Write and Read.
	Big, Chunk int
	// Files is how many 4 KiB files the local small-file measure creates.
	Files int
	// MemFiles are the file counts of the memory backend's small-file measure.
	MemFiles []int
	// MemUserFiles is how many files the memory backend's measure of paths
	// built the way programs build them writes (in 100 directories).
	MemUserFiles int
	// Keys is how many objects the S3 list and delete measures use.
	Keys int
	// ReadAts is how many random 1 MiB ReadAt calls the S3 range measure makes.
	ReadAts int
	// States and StateSize size the FsCheckpointStorage checkpoint; MemStates
	// and MemStateSize the MemoryBackendCheckpointStorage one.
	States, StateSize       int
	MemStates, MemStateSize int
	// Dir is where the local measures write ("" means os.TempDir()).
	Dir string
	// S3 is the server of the S3 measures; nil skips them.
	S3 *s3test.Server
	// Only, when set, selects the measures whose group name it matches
	// ("local sequential", "s3 upload", "checkpoint s3", ...).
	Only *regexp.Regexp
	// Flink, when set, runs the measures against the Flink harness; nil skips them.
	Flink *FlinkConfig
	// Tools, when set (with S3), runs the copy measures: vfskit cp against
	// rclone copy, each uploading and downloading CopyFiles files of 4 KiB
	// and one of Big bytes; nil skips them.
	Tools     *CopyTools
	CopyFiles int
	// Log, when set, receives a line as each measure ends.
	Log io.Writer
}

// Default returns make bench's sizes with 5 rounds.
func Default() Config {
	return Config{
		Rounds: 5, Big: 256 * mib, Chunk: mib, Files: 10_000,
		MemFiles: []int{1_000, 10_000, 100_000}, MemUserFiles: 20_000, Keys: 10_000, ReadAts: 64,
		CopyFiles: 500,
		States:    100, StateSize: mib, MemStates: 10_000, MemStateSize: kib,
	}
}

// Tiny returns sizes small enough for a smoke run: every measure once.
func Tiny() Config {
	return Config{
		Rounds: 1, Big: 2 * mib, Chunk: 64 * kib, Files: 20,
		MemFiles: []int{10, 100}, MemUserFiles: 200, Keys: 30, ReadAts: 4,
		CopyFiles: 20,
		States:    3, StateSize: 64 * kib, MemStates: 20, MemStateSize: kib,
	}
}

// measure is one row (or a few) of the table.
type measure struct {
	name string
	s3   bool
	run  func(ctx context.Context, c *Config) ([]bench.Result, error)
}

var measures = []measure{
	{"local sequential", false, localSequential},
	{"local small files", false, localSmallFiles},
	{"memory sequential", false, memSequential},
	{"memory small files", false, memSmallFiles},
	{"memory user files", false, memUserFiles},
	{"cached vfs.Get", false, cachedGet},
	{"empty layer", false, emptyLayer},
	{"s3 upload", true, s3Upload},
	{"s3 download", true, s3Download},
	{"s3 ReadAt", true, s3ReadAt},
	{"s3 list and delete", true, s3ListDelete},
	{"s3 recoverable writer", true, s3Recoverable},
	{"checkpoint local", false, checkpointLocal},
	{"checkpoint s3", true, checkpointS3},
	{"memory checkpoint storage", false, memoryCheckpoint},
	{"flink inspect", false, flinkInspect},
	{"copy upload", true, copyUpload},
	{"copy download", true, copyDownload},
}

// Run runs every measure (the S3 ones only when c.S3 is set, the copy ones
// only when c.Tools is set too) and returns their
// results in the table's order. It stops at the first measure that fails.
func Run(ctx context.Context, c Config) ([]bench.Result, error) {
	if c.Dir == "" {
		c.Dir = os.TempDir()
	}
	var all []bench.Result
	for _, m := range measures {
		if m.s3 && c.S3 == nil || c.Only != nil && !c.Only.MatchString(m.name) ||
			strings.HasPrefix(m.name, "copy ") && c.Tools == nil {
			continue
		}
		start := time.Now()
		rs, err := m.run(ctx, &c)
		if c.Log != nil {
			fmt.Fprintf(c.Log, "vfsbench: %s: %d results in %.1f s\n", m.name, len(rs), time.Since(start).Seconds())
		}
		if err != nil {
			return all, fmt.Errorf("%s: %w", m.name, err)
		}
		all = append(all, rs...)
	}
	return all, nil
}

// speed turns a Summary of two timed sides into a Result whose values are
// throughputs or times per unit, with target ratio ≥ min.
func speed(name string, s bench.Summary, units float64, unit string, min float64) bench.Result {
	return bench.Result{
		Name: name, Unit: unit, Rounds: s.Rounds,
		Ours: perUnit(s.Ours.Seconds(), units, unit), Baseline: perUnit(s.Baseline.Seconds(), units, unit),
		Ratio: s.Ratio, CPURatio: s.CPURatio,
		Target: fmt.Sprintf("ratio ≥ %.2f", min), Met: s.Ratio >= min,
	}
}

// perUnit gives MiB/s for a "MiB/s" unit, else microseconds per unit.
func perUnit(seconds, units float64, unit string) float64 {
	if unit == "MiB/s" {
		return units / seconds
	}
	return seconds * 1e6 / units
}

// pattern returns n bytes of a fixed, non-constant pattern.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>10)
	}
	return b
}

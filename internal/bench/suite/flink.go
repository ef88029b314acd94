package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/bench"
	"github.com/vfskit/vfskit/internal/flinktest"
)

// FlinkConfig says where the Flink harness is for the measures that compare
// `checkpoints inspect --json` with Flink's own reading of a _metadata.
type FlinkConfig struct {
	// Harness is the harness of the Flink version to compare with (its Env is
	// unused: the measures stay on file://).
	Harness *flinktest.Harness
	// Vfskit is the vfskit binary the cold measures run.
	Vfskit string
}

// flinkMetadata has the harness write a small job (hashmap, parallelism 1) and
// a large one (incremental RocksDB, parallelism 4, a native savepoint) under
// dir, and returns the smallest and the largest _metadata they left.
func flinkMetadata(h *flinktest.Harness, dir string) (small, large string, err error) {
	for _, args := range [][]string{
		{"write", "--dir", "file://" + filepath.Join(dir, "small"), "--backend", "hashmap", "--parallelism", "1", "--checkpoints", "1"},
		{"write", "--dir", "file://" + filepath.Join(dir, "large"), "--backend", "rocksdb-incremental", "--parallelism", "4", "--checkpoints", "3", "--savepoint", "native"},
	} {
		if _, stderr, err := h.Run(args...); err != nil {
			return "", "", fmt.Errorf("flink %s %q: %w\n%s", h.Version, args, err, stderr)
		}
	}
	var sizes = map[string]int64{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "_metadata" {
			info, ierr := d.Info()
			if ierr != nil {
				return ierr
			}
			sizes[p] = info.Size()
		}
		return err
	})
	if err != nil || len(sizes) == 0 {
		return "", "", fmt.Errorf("no _metadata under %s (%v)", dir, err)
	}
	for p, n := range sizes {
		if small == "" || n < sizes[small] {
			small = p
		}
		if large == "" || n > sizes[large] {
			large = p
		}
	}
	return small, large, nil
}

// flinkInspect compares, on a small and the largest _metadata the harness
// produces, `vfskit checkpoints inspect --json` with the harness's describe
// (Flink's Checkpoints.loadCheckpointMetadata) as a user runs each, process
// start included (target 10×), and the decoding alone, warm, in a loop in one
// process each: metadata.Decode against loadCheckpointMetadata (target 1×).
func flinkInspect(ctx context.Context, c *Config) ([]bench.Result, error) {
	if c.Flink == nil {
		return nil, nil
	}
	dir, err := os.MkdirTemp(c.Dir, "vfsbench-flink-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	h := c.Flink.Harness
	small, large, err := flinkMetadata(h, dir)
	if err != nil {
		return nil, err
	}
	var out []bench.Result
	for _, m := range []struct{ label, path string }{{"small", small}, {"largest", large}} {
		data, err := os.ReadFile(m.path)
		if err != nil {
			return out, err
		}
		what := fmt.Sprintf("%s _metadata, %s", m.label, byteSize(len(data)))
		uri := "file://" + filepath.ToSlash(m.path)
		cold, err := bench.Interleave(c.Rounds, func() error {
			return quiet(ctx, c.Flink.Vfskit, "checkpoints", "inspect", "--json", uri)
		}, func() error {
			return quiet(ctx, h.Script, h.Version, "describe", uri)
		})
		if err != nil {
			return out, err
		}
		r := speed(fmt.Sprintf("inspect --json vs Flink %s describe, cold, %s", h.Version, what), cold, 1, "µs/run", 10)
		r.CPURatio = 0 // the commands run in child processes: this process's CPU time says nothing
		r.Note = "process start included: vfskit binary against the JVM harness"
		out = append(out, r)

		warm, err := warmDecode(h, uri, data, c.Rounds)
		if err != nil {
			return out, err
		}
		r = speed(fmt.Sprintf("decode vs Flink %s loadCheckpointMetadata, warm, %s", h.Version, what), warm, 1, "µs/decode", 1)
		r.Note = "in one process each, after warm-up: metadata.Decode against Checkpoints.loadCheckpointMetadata, from memory"
		out = append(out, r)
	}
	return out, nil
}

// warmDecode times metadata.Decode on data in rounds of n decodes, and has the
// harness time Flink's decoding the same way; the ratio is per round.
func warmDecode(h *flinktest.Harness, uri string, data []byte, rounds int) (bench.Summary, error) {
	n := max(20, 2_000_000/max(len(data), 1))
	if rounds == 1 { // smoke sizes
		n = 5
	}
	stdout, stderr, err := h.Run("bench-decode", uri, fmt.Sprint(n), fmt.Sprint(rounds))
	if err != nil {
		return bench.Summary{}, fmt.Errorf("flink bench-decode: %w\n%s", err, stderr)
	}
	var flink struct {
		NsPerDecode []float64 `json:"nsPerDecode"`
	}
	if err := json.Unmarshal([]byte(stdout), &flink); err != nil || len(flink.NsPerDecode) != rounds {
		return bench.Summary{}, fmt.Errorf("flink bench-decode printed %q (%v)", stdout, err)
	}
	for range 3 { // warm-up, as the harness does (Go needs no JIT warm-up)
		if err := decodeLoop(data, n); err != nil {
			return bench.Summary{}, err
		}
	}
	var ratios, ours []float64
	for i := range rounds {
		start := time.Now()
		if err := decodeLoop(data, n); err != nil {
			return bench.Summary{}, err
		}
		per := float64(time.Since(start)) / float64(n)
		ours = append(ours, per)
		ratios = append(ratios, flink.NsPerDecode[i]/max(per, 1))
	}
	base := slices.Clone(flink.NsPerDecode)
	return bench.Summary{
		Rounds:   rounds,
		Ratio:    bench.Median(ratios),
		Ours:     time.Duration(bench.Median(ours)),
		Baseline: time.Duration(bench.Median(base)),
	}, nil
}

func decodeLoop(data []byte, n int) error {
	for range n {
		if _, err := metadata.Decode(data); err != nil {
			return err
		}
	}
	return nil
}

// quiet runs a command, discarding its output; an error carries its standard error.
func quiet(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, errOut.String())
	}
	return nil
}

func byteSize(n int) string {
	if n < 10*kib {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/kib)
}

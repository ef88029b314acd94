package suite

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/internal/bench"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// LayerOp is a call whose cost under an empty layer is measured.
type LayerOp struct {
	Name string
	Do   func(vfs.FileSystem) error
}

// LayerOps are the calls the cost of an empty layer is measured on (issue
// 14): a 4 KiB read of p (Open, Read, Close) and a Stat of p. p must be a file
// of at least 4 KiB.
func LayerOps(ctx context.Context, p vfs.Path) []LayerOp {
	buf := make([]byte, 4*kib)
	return []LayerOp{
		{"Read4KiB", func(fsys vfs.FileSystem) error {
			in, err := fsys.Open(ctx, p)
			if err != nil {
				return err
			}
			if _, err := io.ReadFull(in, buf); err != nil {
				_ = in.Close()
				return err
			}
			return in.Close()
		}},
		{"Stat", func(fsys vfs.FileSystem) error { _, err := fsys.Stat(ctx, p); return err }},
	}
}

// LayerBatch is how many calls a side of the empty-layer measure makes per
// round.
const LayerBatch = 64

// LayerRound runs round i of the empty-layer measure of op into b: a batch on
// the bare file system, one on the layered one, one more on the bare one (the
// control). Then b.MedianRatio(1, 0) is the layer's cost as a ratio and
// b.MedianRatio(2, 0) what the measure resolves.
func LayerRound(b *bench.Batches, i int, op LayerOp, bare, layered vfs.FileSystem) error {
	b.Batch = LayerBatch
	do := func(fsys vfs.FileSystem) func() error { return func() error { return op.Do(fsys) } }
	return b.Round(i, do(bare), do(layered), do(bare))
}

// empty is a layer that changes nothing.
type empty struct{ layer.Base }

// emptyLayer measures what an empty layer (layer.Base) costs over memory://
// and file:// on each of LayerOps, against the bare backend, in 400 rounds per
// Config round. The target: at most 5% slower, except Stat over memory://,
// which may be 15% slower: that Stat costs about 200 ns, and a layer's
// forwarding of it is bound by Go's ABI copying the 104-byte vfs.FileStatus
// result through the promoted method's wrapper (11-12 ns whatever the backend,
// measured by BenchmarkEmptyLayer/stored in package layer).
func emptyLayer(ctx context.Context, c *Config) ([]bench.Result, error) {
	dir, err := os.MkdirTemp(c.Dir, "vfsbench-layer-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var results []bench.Result
	for _, be := range []struct {
		name string
		fsys vfs.FileSystem
		p    vfs.Path
	}{
		{"memory://", memfs.New(), vfs.MustPath("/file")},
		{"file://", local.New(), vfs.MustPath(dir).Join("file")},
	} {
		if err := vfs.WriteFile(ctx, be.fsys, be.p, pattern(4*kib), vfs.NoOverwrite); err != nil {
			return nil, err
		}
		layered := &empty{layer.Base{Inner: be.fsys}}
		for _, op := range LayerOps(ctx, be.p) {
			var b bench.Batches
			for i := range 400 * c.Rounds {
				if err := LayerRound(&b, i, op, be.fsys, layered); err != nil {
					return nil, err
				}
			}
			ratio := b.MedianRatio(0, 1) // bare ÷ layered: above 1, the layer is faster
			target, min := "ratio ≥ 0.95 (≤ 5% slower)", 0.95
			if be.name == "memory://" && op.Name == "Stat" {
				target, min = "ratio ≥ 0.87 (≤ 15% slower: the FileStatus copy)", 1/1.15
			}
			results = append(results, bench.Result{
				Name: fmt.Sprintf("empty layer over %s, %s", be.name, op.Name),
				Ours: b.Median(1), Baseline: b.Median(0), Unit: "ns/call", Ratio: ratio, Rounds: b.Rounds(),
				Target: target, Met: ratio >= min,
				Note: fmt.Sprintf("+%.0f ns/call; control (bare ÷ bare) %.3f", b.MedianDiff(1, 0), b.MedianRatio(2, 0)),
			})
		}
	}
	return results, nil
}

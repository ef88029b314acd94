package layer_test

import (
	"io"
	"testing"
	"time"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// BenchmarkEmptyLayer measures the cost of an empty layer over memory:// and
// file:// on a 4 KiB read (Open, Read, Close) and on a Stat, against the bare
// backend in the same run, and reports the ratio layered/bare ("ratio"; the
// target is under 1.05). The layer adds a few tens of nanoseconds (two calls
// and copies of the result): under 5% of file://, more of memory://, whose
// Stat is a map lookup.
func BenchmarkEmptyLayer(b *testing.B) {
	b.Run("memory", func(b *testing.B) { benchEmptyLayer(b, memfs.New(), vfs.MustPath("/file")) })
	b.Run("file", func(b *testing.B) { benchEmptyLayer(b, local.New(), vfs.MustPath(b.TempDir()).Join("file")) })
}

func benchEmptyLayer(b *testing.B, bare vfs.FileSystem, p vfs.Path) {
	ctx := b.Context()
	if err := vfs.WriteFile(ctx, bare, p, make([]byte, 4096), vfs.NoOverwrite); err != nil {
		b.Fatal(err)
	}
	layered := empty{layer.Base{Inner: bare}}
	buf := make([]byte, 4096)
	ops := map[string]func(fsys vfs.FileSystem) error{
		"Read4KiB": func(fsys vfs.FileSystem) error {
			in, err := fsys.Open(ctx, p)
			if err != nil {
				return err
			}
			if _, err := io.ReadFull(in, buf); err != nil {
				return err
			}
			return in.Close()
		},
		"Stat": func(fsys vfs.FileSystem) error { _, err := fsys.Stat(ctx, p); return err },
	}
	for name, op := range ops {
		b.Run(name, func(b *testing.B) {
			// Alternate batches of bare and layered calls, so both see the
			// same machine load, and time each batch.
			const batch = 64
			var bareNs, layerNs time.Duration
			timeBatch := func(fsys vfs.FileSystem) time.Duration {
				start := time.Now()
				for range batch {
					if err := op(fsys); err != nil {
						b.Fatal(err)
					}
				}
				return time.Since(start)
			}
			// Which side goes first alternates, so neither always runs on
			// caches the other warmed.
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 {
					bareNs += timeBatch(bare)
					layerNs += timeBatch(layered)
				} else {
					layerNs += timeBatch(layered)
					bareNs += timeBatch(bare)
				}
			}
			b.ReportMetric(float64(bareNs.Nanoseconds())/float64(b.N*batch), "bare-ns/op")
			b.ReportMetric(float64(layerNs.Nanoseconds())/float64(b.N*batch), "layer-ns/op")
			b.ReportMetric(float64(layerNs)/float64(bareNs), "ratio")
		})
	}
}

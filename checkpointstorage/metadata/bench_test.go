package metadata_test

import (
	"os"
	"path/filepath"
	"testing"

	m "github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/fixtures"
)

// largestFixture returns the bytes of the largest Flink _metadata fixture.
func largestFixture(b *testing.B) []byte {
	root, files := fixtures.FlinkMetadataFiles(b)
	var largest []byte
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			b.Fatal(err)
		}
		if len(data) > len(largest) {
			largest = data
		}
	}
	return largest
}

// BenchmarkDecodeLargestFixture decodes the largest real Flink _metadata.
func BenchmarkDecodeLargestFixture(b *testing.B) {
	data := largestFixture(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeLargestFixture encodes it back.
func BenchmarkEncodeLargestFixture(b *testing.B) {
	md, err := m.Decode(largestFixture(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Encode(md); err != nil {
			b.Fatal(err)
		}
	}
}

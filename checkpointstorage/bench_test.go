package checkpointstorage_test

import (
	"testing"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// BenchmarkSmallStateStream writes a 100-byte state through a stream whose
// threshold is the maximum (1 MiB). The "flink-eager-buffer" baseline allocates
// the whole buffer up front, as Flink's FsCheckpointStateOutputStream does; the
// stream's buffer grows with the data instead (compare B/op).
func BenchmarkSmallStateStream(b *testing.B) {
	data := pattern(100, 1)
	b.Run("stream", func(b *testing.B) {
		s, err := cs.NewFsCheckpointStorage(b.Context(), cs.NewJobID(), memoryBackend.base(nil), vfs.Path{}, cs.MaxFileStateThreshold, 0)
		if err != nil {
			b.Fatal(err)
		}
		loc, err := s.InitializeLocationForCheckpoint(b.Context(), 1)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			out, _ := loc.CreateCheckpointStateOutputStream(b.Context(), cs.Exclusive)
			_, _ = out.Write(data)
			if _, err := out.CloseAndGetHandle(b.Context()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("flink-eager-buffer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf := make([]byte, 0, cs.MaxFileStateThreshold)
			buf = append(buf, data...)
			_ = cs.NewByteStreamStateHandle("x", append([]byte(nil), buf...))
		}
	})
}

// BenchmarkMetadataCodec encodes and decodes metadata with 1,000 handles.
func BenchmarkMetadataCodec(b *testing.B) {
	m := &cs.CheckpointMetadata{CheckpointID: 1, Timestamp: fixedTime}
	op := cs.OperatorState{UID: "op", Parallelism: 1000, MaxParallelism: 1000}
	dir := memoryBackend.base(nil).Join("chk-1")
	for i := range 1000 {
		op.Subtasks = append(op.Subtasks, cs.SubtaskState{Index: i, Handles: []metadata.Handle{
			cs.NewRelativeFileStateHandle(dir.Join("0123456789abcdef"), "0123456789abcdef", 1<<20),
		}})
	}
	m.Operators = []cs.OperatorState{op}
	data, err := m.MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := m.MarshalBinary(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := cs.UnmarshalCheckpointMetadata(data, dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}

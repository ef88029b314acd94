package checkpointstorage_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// FuzzUnmarshalCheckpointMetadata: the decoder never panics, whatever it
// accepts encodes back to the same bytes, and metadata.Read (which reads the
// input in bounded steps) accepts exactly what it accepts.
func FuzzUnmarshalCheckpointMetadata(f *testing.F) {
	f.Add(must(richMetadata().MarshalBinary()))
	f.Add(must((&cs.CheckpointMetadata{}).MarshalBinary()))
	f.Add([]byte("VFKC"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := vfs.MustPath("memory://fuzz/chk-1")
		m, err := cs.UnmarshalCheckpointMetadata(data, dir)
		_, readErr := metadata.Read(bytes.NewReader(data))
		if (err == nil) != (readErr == nil) {
			t.Fatalf("UnmarshalCheckpointMetadata: %v, metadata.Read: %v", err, readErr)
		}
		if err != nil {
			return
		}
		again, err := m.MarshalBinary()
		if err != nil {
			t.Fatalf("accepted metadata does not encode: %v", err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("round trip changed the bytes:\n%x\n%x", data, again)
		}
	})
}

// FuzzDecodePathFromReference: decoding never panics, and a decoded path encodes
// to a reference that decodes to the same path.
func FuzzDecodePathFromReference(f *testing.F) {
	f.Add(cs.EncodePathAsReference(vfs.MustPath("s3://bucket/savepoints/savepoint-abcdef-0123456789ab")).Bytes())
	f.Add([]byte{0x05, 0x5F, 0x3F, 0x18})
	f.Add([]byte{0x05, 0x5F, 0x3F, 0x18, '/'})
	f.Fuzz(func(t *testing.T, b []byte) {
		ref, err := cs.NewLocationReference(b)
		if err != nil {
			return
		}
		p, err := cs.DecodePathFromReference(ref)
		if err != nil {
			return
		}
		q, err := cs.DecodePathFromReference(cs.EncodePathAsReference(p))
		if err != nil || q != p {
			t.Fatalf("path %q does not survive re-encoding: %v, %q", p, err, q)
		}
	})
}

// FuzzMetadataBody fuzzes the body decoder behind a valid frame (header and
// CRC), which random bytes would almost never pass.
func FuzzMetadataBody(f *testing.F) {
	for _, m := range []*cs.CheckpointMetadata{richMetadata(), {}} {
		b := must(m.MarshalBinary())
		f.Add(b[10 : len(b)-4])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		data := frame(body)
		m, err := cs.UnmarshalCheckpointMetadata(data, vfs.MustPath("memory://fuzz/chk-1"))
		if err != nil {
			return
		}
		again, err := m.MarshalBinary()
		if err != nil {
			t.Fatalf("accepted metadata does not encode: %v", err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("round trip changed the bytes:\n%x\n%x", data, again)
		}
	})
}

// frame wraps a body in the version-1 header and CRC-32C trailer.
func frame(body []byte) []byte {
	b := append([]byte("VFKC\x00\x01"), binary.BigEndian.AppendUint32(nil, uint32(len(body)))...)
	b = append(b, body...)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

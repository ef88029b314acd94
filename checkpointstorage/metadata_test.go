package checkpointstorage_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

func richMetadata() *cs.CheckpointMetadata {
	return &cs.CheckpointMetadata{
		JobID:        cs.JobID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
		CheckpointID: 1234567,
		Timestamp:    fixedTime,
		IsSavepoint:  true,
		Operators: []cs.OperatorState{
			{UID: "source", Parallelism: 2, MaxParallelism: 128, Subtasks: []cs.SubtaskState{
				{Index: 0, Handles: []metadata.Handle{
					cs.NewByteStreamStateHandle("inline", []byte("offsets")),
					cs.NewRelativeFileStateHandle(vfs.MustPath("memory://x/chk-1/aaaa"), "aaaa", 4096),
				}},
				{Index: 1, Handles: []metadata.Handle{
					&cs.FileStateHandle{FilePath: vfs.MustPath("s3://bucket/job/shared/bbbb"), Size: 77, Scope: cs.Shared},
					cs.NewFileStateHandle(vfs.MustPath("file:///data/x"), 5),
				}},
			}},
			{UID: "sink ü", Parallelism: 1, MaxParallelism: 1, Subtasks: []cs.SubtaskState{{Index: 0}}},
			{UID: "stateless"},
		},
	}
}

func TestMetadataRoundTrip(t *testing.T) {
	dir := vfs.MustPath("file:///restore/here")
	for name, m := range map[string]*cs.CheckpointMetadata{
		"rich":      richMetadata(),
		"empty":     {},
		"zero time": {CheckpointID: 1, Operators: []cs.OperatorState{{UID: "a"}}},
		"pre-1970":  {Timestamp: time.Date(1969, 7, 20, 20, 17, 0, 1, time.UTC)},
	} {
		b, err := m.MarshalBinary()
		require.NoError(t, err, name)
		var buf bytes.Buffer
		n, err := m.WriteTo(&buf)
		require.NoError(t, err, name)
		require.Equal(t, int64(len(b)), n)
		require.Equal(t, b, buf.Bytes(), "deterministic")

		got, err := cs.UnmarshalCheckpointMetadata(b, dir)
		require.NoError(t, err, name)
		require.Equal(t, m.JobID, got.JobID)
		require.Equal(t, m.CheckpointID, got.CheckpointID)
		require.True(t, m.Timestamp.Equal(got.Timestamp), "%s: %v != %v", name, m.Timestamp, got.Timestamp)
		require.Equal(t, m.IsSavepoint, got.IsSavepoint)
		require.Equal(t, m.StateSize(), got.StateSize())
		require.Len(t, got.Operators, len(m.Operators))
		again, err := got.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, b, again, "%s: stable through a round trip", name)
	}
	got, err := cs.UnmarshalCheckpointMetadata(must(richMetadata().MarshalBinary()), dir)
	require.NoError(t, err)
	hs := got.Handles()
	require.Len(t, hs, 4)
	require.Equal(t, []byte("offsets"), hs[0].(*cs.ByteStreamStateHandle).Data)
	rel := hs[1].(*cs.RelativeFileStateHandle)
	require.Equal(t, dir.Join("aaaa"), rel.FilePath, "resolved against the load directory")
	require.Equal(t, int64(4096), rel.Size)
	require.Equal(t, cs.Shared, hs[2].(*cs.FileStateHandle).Scope)
	require.Equal(t, cs.Exclusive, hs[3].(*cs.FileStateHandle).Scope)
	require.Equal(t, "sink ü", got.Operators[1].UID)
	require.Equal(t, int64(7+4096+77+5), got.StateSize())
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestMetadataTruncationAndCorruption(t *testing.T) {
	good := must(richMetadata().MarshalBinary())
	for n := range len(good) {
		_, err := cs.UnmarshalCheckpointMetadata(good[:n], vfs.Path{})
		require.ErrorIs(t, err, cs.ErrCorruptMetadata, "truncated to %d bytes", n)
	}
	for i := range good {
		for _, bit := range []byte{0x01, 0x80} {
			b := bytes.Clone(good)
			b[i] ^= bit
			_, err := cs.UnmarshalCheckpointMetadata(b, vfs.Path{})
			require.Error(t, err, "byte %d bit %#x", i, bit)
			require.True(t, errors.Is(err, cs.ErrCorruptMetadata) || errors.Is(err, metadata.ErrUnsupportedVersion), "byte %d: %v", i, err)
		}
	}
	_, err := cs.UnmarshalCheckpointMetadata(append(bytes.Clone(good), 0), vfs.Path{})
	require.ErrorIs(t, err, cs.ErrCorruptMetadata)
	require.ErrorContains(t, err, "unexpected bytes")

	_, err = cs.UnmarshalCheckpointMetadata([]byte("PK\x03\x04 a zip file"), vfs.Path{})
	require.ErrorIs(t, err, cs.ErrCorruptMetadata)
	require.ErrorContains(t, err, "wrong magic")
}

// reseal replaces old with new in the encoded metadata, fixes the length and
// recomputes the CRC, as a buggy or malicious writer would.
func reseal(t *testing.T, b []byte, old, new string) []byte {
	t.Helper()
	require.Equal(t, 1, bytes.Count(b, []byte(old)), old)
	b = bytes.Replace(b[:len(b)-4], []byte(old), []byte(new), 1)
	binary.BigEndian.PutUint32(b[6:], uint32(len(b)-10))
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

func TestMetadataValidatesContent(t *testing.T) {
	good := must(richMetadata().MarshalBinary())
	for _, tc := range []struct{ old, new, msg string }{
		{"\x04aaaa", "\x04../a", "invalid relative state path"},
		{"\x04aaaa", "\x04a/aa", "invalid relative state path"},
		{"\x04aaaa", "\x04\xff\xfe\xfd\xfc", "not valid UTF-8"},
		{"s3://bucket/job/shared/bbbb", "1x://bucket/job/shared/bbbb", "invalid file path"},
		{"s3://bucket/job/shared/bbbb", "s3://bucket/job//shared/bbbb", "not in normal form"},
	} {
		_, err := cs.UnmarshalCheckpointMetadata(reseal(t, good, tc.old, tc.new), vfs.Path{})
		require.ErrorIs(t, err, cs.ErrCorruptMetadata, tc.msg)
		require.ErrorContains(t, err, tc.msg)
	}

	v2 := bytes.Clone(good)
	binary.BigEndian.PutUint16(v2[4:], 2)
	v2 = append(v2[:len(v2)-4], 0, 0, 0, 0)
	binary.BigEndian.PutUint32(v2[len(v2)-4:], crc32.Checksum(v2[:len(v2)-4], crc32.MakeTable(crc32.Castagnoli)))
	_, err := cs.UnmarshalCheckpointMetadata(v2, vfs.Path{})
	require.ErrorIs(t, err, metadata.ErrUnsupportedVersion)
	require.ErrorContains(t, err, "version 2")
}

// foreignHandle is a StreamStateHandle of another package: the codec cannot
// know what it holds.
type foreignHandle struct{}

func (*foreignHandle) OpenInputStream(context.Context) (vfs.InputStream, error) { return nil, nil }
func (*foreignHandle) StateSize() int64                                         { return 0 }
func (*foreignHandle) DiscardState(context.Context) error                       { return nil }

func TestMetadataMarshalRefusesBadModels(t *testing.T) {
	var nilMeta *cs.CheckpointMetadata
	_, err := nilMeta.MarshalBinary()
	require.ErrorIs(t, err, fs.ErrInvalid)
	for name, m := range map[string]*cs.CheckpointMetadata{
		"negative id":          {CheckpointID: -1},
		"empty operator id":    {Operators: []cs.OperatorState{{}}},
		"negative parallelism": {Operators: []cs.OperatorState{{UID: "a", Parallelism: -1}}},
		"negative index":       {Operators: []cs.OperatorState{{UID: "a", Subtasks: []cs.SubtaskState{{Index: -1}}}}},
		"nil handle":           sampleMetadata(cs.JobID{}, 1, nil),
		"nil typed handle":     sampleMetadata(cs.JobID{}, 1, (*cs.FileStateHandle)(nil)),
		"foreign handle":       sampleMetadata(cs.JobID{}, 1, &foreignHandle{}),
		"file without path":    sampleMetadata(cs.JobID{}, 1, &cs.FileStateHandle{}),
		"bad relative path":    sampleMetadata(cs.JobID{}, 1, cs.NewRelativeFileStateHandle(vfs.MustPath("/a/b"), "../b", 1)),
	} {
		_, err := m.MarshalBinary()
		require.ErrorIs(t, err, fs.ErrInvalid, name)
	}
}

func TestHandleKindsAndStrings(t *testing.T) {
	require.Equal(t, "inline", cs.KindInline.String())
	require.Equal(t, "file", cs.KindFile.String())
	require.Equal(t, "relative", cs.KindRelativeFile.String())
	require.Equal(t, "HandleKind(9)", cs.HandleKind(9).String())
	require.Equal(t, cs.HandleKind(0), cs.KindOf(nil))
	require.Equal(t, "EXCLUSIVE", cs.Exclusive.String())
	require.Equal(t, "SHARED", cs.Shared.String())
	require.Equal(t, "StateScope(5)", cs.StateScope(5).String())

	h := cs.NewRelativeFileStateHandle(vfs.MustPath("memory://a/chk-1/x"), "x", 3)
	require.Contains(t, h.String(), "memory://a/chk-1/x")
	_, err := (&cs.FileStateHandle{}).OpenInputStream(t.Context())
	require.ErrorIs(t, err, fs.ErrInvalid)
	require.NoError(t, (&cs.FileStateHandle{}).DiscardState(t.Context()))
	_, err = cs.NewFileStateHandle(vfs.MustPath(memoryBackend.base(t).Join("missing").String()), 1).OpenInputStream(t.Context())
	require.ErrorIs(t, err, fs.ErrNotExist)
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r    io.Reader
	read int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += int64(n)
	return n, err
}

// zeros is an endless stream of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestReadMetadataReadsOnlyWhatTheHeaderAnnounces: a large file that is not
// metadata, or metadata followed by more data, is refused after reading the
// header (plus the announced body and one byte), never read whole.
func TestReadMetadataReadsOnlyWhatTheHeaderAnnounces(t *testing.T) {
	const large = 64 << 20
	good := must(richMetadata().MarshalBinary())
	for name, tc := range map[string]struct {
		prefix  []byte
		maxRead int
		msg     string
	}{
		"not metadata":       {[]byte("PK\x03\x04 a zip file"), 10, "wrong magic"},
		"newer version":      {[]byte("VFKC\x00\x09"), 10, "version 9"},
		"trailing data":      {good, len(good) + 1, "unexpected bytes after the end"},
		"header, then zeros": {good[:10], len(good) + 1, "unexpected bytes after the end"},
	} {
		r := &countingReader{r: io.LimitReader(io.MultiReader(bytes.NewReader(tc.prefix), zeros{}), large)}
		_, err := metadata.Read(r)
		require.Error(t, err, name)
		require.ErrorContains(t, err, tc.msg, name)
		require.LessOrEqual(t, r.read, int64(tc.maxRead), name)
	}
	zeroed := append(bytes.Clone(good[:10]), make([]byte, len(good)-10)...)
	_, err := metadata.Read(bytes.NewReader(zeroed))
	require.ErrorIs(t, err, cs.ErrCorruptMetadata)
	require.ErrorContains(t, err, "checksum mismatch")
	m, err := metadata.Read(bytes.NewReader(good))
	require.NoError(t, err)
	require.Equal(t, richMetadata().CheckpointID, m.CheckpointID)
	for n := range len(good) {
		_, err := metadata.Read(bytes.NewReader(good[:n]))
		require.ErrorIs(t, err, cs.ErrCorruptMetadata, "truncated to %d bytes", n)
	}
}

// TestMetadataKeepsExactFilePaths: a state file whose name has a '\', '?' or
// '%' (the exact route keeps them) decodes to the same Path.
func TestMetadataKeepsExactFilePaths(t *testing.T) {
	p := vfs.MustPath("s3://bucket/job/shared").Join(`a\b?c%41`)
	m := sampleMetadata(cs.JobID{}, 1, &cs.FileStateHandle{FilePath: p, Size: 3})
	got, err := cs.UnmarshalCheckpointMetadata(must(m.MarshalBinary()), vfs.Path{})
	require.NoError(t, err)
	hs := got.Handles()
	require.Len(t, hs, 1)
	fh, ok := hs[0].(*cs.FileStateHandle)
	require.True(t, ok, "%T", hs[0])
	require.Equal(t, p, fh.FilePath)
}

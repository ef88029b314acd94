package metadata_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	m "github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/fixtures"
)

// bound is the memory a decode of n bytes may allocate.
func bound(n int) uint64 { return 4*uint64(n) + 1<<20 }

// checkBound decodes b and checks that it allocates at most bound(len(b)),
// whether it succeeds or not; it returns the decode's error.
func checkBound(t *testing.T, name string, b []byte) error {
	t.Helper()
	var err error
	n := allocDuring(func() { _, err = m.Decode(b) })
	t.Logf("%s: %d bytes allocated for %d bytes (%.2f×): %v", name, n, len(b), float64(n)/float64(len(b)), err)
	require.LessOrEqual(t, n, bound(len(b)), "%s: %d bytes allocated for %d bytes of input (%.1f×)", name, n, len(b), float64(n)/float64(len(b)))
	if err != nil {
		require.True(t, errors.Is(err, m.ErrCorrupt), "%s: %v", name, err)
	}
	return err
}

// repeatFlink is a version 3 file with one operator of n subtasks, each
// written by sub(i).
func repeatFlink(n int, sub func(i int) []byte) []byte {
	b := []byte{0x49, 0x60, 0x67, 0x2d, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1}
	b = append(b, make([]byte, 16)...)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = append(b, 0, 0, 0, 128, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	for i := range n {
		b = append(b, sub(i)...)
	}
	return b
}

// vfskitFile frames a vfskit body with header and CRC.
func vfskitFile(body []byte) []byte {
	b := append([]byte("VFKC\x00\x01"), binary.BigEndian.AppendUint32(nil, uint32(len(body)))...)
	b = append(b, body...)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// vfskitSubtasks is a vfskit body of one operator with n subtasks, each
// holding handle(i).
func vfskitSubtasks(n int, handle func(i int) []byte) []byte {
	body := append(make([]byte, 16), 2, 0, 0, 0, 1, 1, 'o', 1, 1)
	body = binary.AppendUvarint(body, uint64(n))
	for i := range n {
		body = binary.AppendUvarint(body, uint64(i))
		h := handle(i)
		if h == nil {
			body = append(body, 0)
			continue
		}
		body = append(body, 1)
		body = append(body, h...)
	}
	return body
}

// TestDecodeMemoryIsBounded: crafted files of several megabytes built to cost
// the most memory per byte (finished subtasks, empty subtasks, minimal
// handles, tiny vfskit handles) decode or fail within 4 × their size + 1 MiB;
// vfskit files shaped like the storage writes them decode.
func TestDecodeMemoryIsBounded(t *testing.T) {
	const n = 1 << 20
	be := binary.BigEndian
	finished := repeatFlink(n, func(i int) []byte { return be.AppendUint32(nil, uint32(-(i + 1))) })
	empty := repeatFlink(n, func(i int) []byte { return append(be.AppendUint32(nil, uint32(i)), make([]byte, 8+2+8)...) })
	keyed := repeatFlink(n, func(i int) []byte {
		b := append(be.AppendUint32(nil, uint32(i)), make([]byte, 8)...) // no operator state
		b = append(b, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0)                      // key groups: no key group, null delegate
		return append(b, make([]byte, 1+8)...)                           // no raw keyed state, no channel state
	})
	tinyInline := vfskitFile(vfskitSubtasks(n, func(int) []byte { return []byte{1, 0, 0} }))
	emptyVfskit := vfskitFile(vfskitSubtasks(n, func(int) []byte { return nil }))
	for name, b := range map[string][]byte{
		"finished subtasks": finished, "empty subtasks": empty, "minimal keyed subtasks": keyed,
		"tiny vfskit handles": tinyInline, "empty vfskit subtasks": emptyVfskit,
	} {
		checkBound(t, name, b)
	}

	// What vfskit's storage writes: per subtask one relative file or a small
	// inline state named by a UUID.
	relative := vfskitFile(vfskitSubtasks(n/4, func(i int) []byte {
		return append(append([]byte{3, 36}, bytes.Repeat([]byte{'a'}, 36)...), 0x80, 0x80, 0x01)
	}))
	inline := vfskitFile(vfskitSubtasks(n/4, func(i int) []byte {
		return append(append([]byte{1, 36}, bytes.Repeat([]byte{'a'}, 36)...), append([]byte{20}, make([]byte, 20)...)...)
	}))
	for name, b := range map[string][]byte{"relative files": relative, "inline state": inline} {
		require.NoError(t, checkBound(t, name, b), name)
	}
}

// TestFixturesDecodeWithinBound: every real file decodes within the bound.
func TestFixturesDecodeWithinBound(t *testing.T) {
	root, files := fixtures.FlinkMetadataFiles(t)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		require.NoError(t, checkBound(t, f, b))
	}
}

package metadata

import (
	"bytes"
	"fmt"
)

// Decode decodes a _metadata file in either format, told apart by its magic
// number: Flink's (0x4960672d, versions 2 to 7) or vfskit's ("VFKC"). The
// whole input must be one metadata file: trailing bytes are an error.
// Corrupt, truncated or foreign input fails with an error that errors.Is
// ErrCorrupt and names what was wrong and at which byte; a version this
// package does not read with ErrUnsupportedVersion.
//
// Every count and length is checked against the bytes left before anything is
// allocated for it, so decoding costs memory in proportion to len(data)
// whatever the lengths in it claim. The model holds copies: data may be
// reused afterwards.
func Decode(data []byte) (*Metadata, error) {
	switch {
	case isFlink(data):
		return decodeFlink(data)
	case isVfskit(data):
		return decodeVfskit(data)
	case len(data) < 4 && (bytes.HasPrefix(vfskitMagic[:], data) || bytes.HasPrefix([]byte{0x49, 0x60, 0x67, 0x2d}, data)):
		return nil, corrupt("truncated: %d bytes, shorter than the magic number", len(data))
	case len(data) < 4:
		return nil, corrupt("not a checkpoint metadata file (%d bytes)", len(data))
	}
	return nil, corrupt("not a checkpoint metadata file (wrong magic number %x, expected %08x for Flink or %x for vfskit)", data[:4], FlinkMagic, vfskitMagic[:])
}

func unsupportedFlink(v int32) error {
	return fmt.Errorf("metadata: Flink metadata format version %d, this package reads versions %d to %d: %w", v, MinFlinkVersion, MaxFlinkVersion, ErrUnsupportedVersion)
}

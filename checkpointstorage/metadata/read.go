package metadata

import (
	"bytes"
	"fmt"
	"io"
)

// Read reads one _metadata file from r and decodes it (see Decode). A vfskit
// file is read no further than its header announces (plus one byte, to detect
// trailing data), and anything that is neither format costs a read of its
// first 10 bytes, not the whole input; a Flink file is read to its end.
func Read(r io.Reader) (*Metadata, error) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(r, vfskitHeaderLen)); err != nil {
		return nil, fmt.Errorf("metadata: reading: %w", err)
	}
	head := buf.Bytes()
	if want, ok := VfskitLength(head); ok {
		buf.Grow(int(min(want, 64<<20)))
		if _, err := buf.ReadFrom(io.LimitReader(r, want-vfskitHeaderLen+1)); err != nil {
			return nil, fmt.Errorf("metadata: reading: %w", err)
		}
	} else if isFlink(head) {
		if _, err := buf.ReadFrom(r); err != nil {
			return nil, fmt.Errorf("metadata: reading: %w", err)
		}
	}
	return Decode(buf.Bytes())
}

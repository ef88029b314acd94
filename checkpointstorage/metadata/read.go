package metadata

import (
	"errors"
	"fmt"
	"io"
)

// Read reads one _metadata file from r and decodes it (see Decode). A vfskit
// file is read no further than its header announces (plus one byte, to detect
// trailing data), and anything that is neither format costs a read of its
// first 10 bytes, not the whole input; a Flink file is read to its end. The
// file is read into one buffer of its size where the size is known (the
// header says it, or r is an io.Seeker), so reading costs its size once.
func Read(r io.Reader) (*Metadata, error) {
	head := make([]byte, vfskitHeaderLen)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("metadata: reading: %w", err)
	}
	head = head[:n]
	// rest is how many more bytes to read: what the vfskit header announces
	// plus one (which reveals trailing data), or what a Seeker has left plus
	// one (which reveals a Flink file that grew since).
	var rest int64 = -1
	switch want, ok := VfskitLength(head); {
	case ok:
		rest = want - vfskitHeaderLen + 1
	case isFlink(head):
		if rest = remaining(r); rest >= 0 {
			rest++
		}
	default:
		return Decode(head)
	}
	data := head
	if rest >= 0 && rest <= maxPrealloc {
		data = make([]byte, n, n+int(rest))
		copy(data, head)
		for len(data) < cap(data) {
			m, err := r.Read(data[len(data):cap(data)])
			data = data[:len(data)+m]
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("metadata: reading: %w", err)
			}
		}
		if len(data) < cap(data) || isVfskit(head) {
			return Decode(data)
		}
		// A Flink file longer than measured: read the rest.
	}
	if isVfskit(head) {
		r = io.LimitReader(r, rest)
	}
	more, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("metadata: reading: %w", err)
	}
	return Decode(append(data, more...))
}

// maxPrealloc bounds the buffer Read allocates on the word of a header or a
// Seeker; larger files are read as they come.
const maxPrealloc = 64 << 20

// remaining returns how many bytes r has left when it can tell (an io.Seeker),
// and -1 otherwise.
func remaining(r io.Reader) int64 {
	s, ok := r.(io.Seeker)
	if !ok {
		return -1
	}
	cur, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return -1
	}
	end, err := s.Seek(0, io.SeekEnd)
	if _, err2 := s.Seek(cur, io.SeekStart); err != nil || err2 != nil || end < cur {
		return -1
	}
	return end - cur
}

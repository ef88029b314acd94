package metadata

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/vfskit/vfskit/vfs"
)

// Read reads one _metadata file from r and decodes it (see Decode), reading
// no more than the format needs and allocating in proportion to the bytes it
// reads, whatever the file's lengths claim:
//   - A vfskit file is read no further than its header announces (plus one
//     byte, to detect trailing data). The length is checked against the
//     file's size where r tells it (an io.Seeker): a header announcing more
//     than the file holds fails before anything is allocated for it;
//     elsewhere the buffer grows with the bytes actually read.
//   - A Flink file is read in growing steps, each decoded as far as it goes:
//     reading stops as soon as the decoder succeeds at the end of the file
//     or fails for another reason than running out of bytes. A file with
//     bytes after the end of its metadata (a sparse file of 1 GiB behind a
//     small checkpoint) fails after the first step, not the whole file.
//   - Anything that is neither format costs a read of its first 10 bytes.
//
// Memory stays below 4 × the bytes read + 1 MiB.
func Read(r io.Reader) (*Metadata, error) {
	head := make([]byte, vfskitHeaderLen)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("metadata: reading: %w", err)
	}
	head = head[:n]
	switch want, ok := VfskitLength(head); {
	case ok:
		return readVfskit(r, head, want)
	case isFlink(head):
		return readFlink(r, head)
	}
	return Decode(head)
}

// readVfskit reads the rest of a vfskit file of want bytes (as its header
// announces) whose first bytes are head. Where r tells its size cheaply (a
// vfs stream that knows its file's status, a file, a bytes.Reader), a header
// announcing more than the file holds fails at once and the file is read
// into one buffer of its size. Elsewhere the header's word is not taken for
// the buffer: it starts at firstChunk bytes and doubles as bytes arrive, so
// a false header costs what the file holds. (Seeking to learn the size would
// cost an object store's stream a second request.)
func readVfskit(r io.Reader, head []byte, want int64) (*Metadata, error) {
	rest := want - int64(len(head)) + 1 // one more reveals trailing data
	if left := knownSize(r, head, false); left >= 0 {
		if rest > left+1 {
			return nil, corrupt("the header announces a file of %d bytes, the file has %d", want, int64(len(head))+left)
		}
		data := make([]byte, len(head), int64(len(head))+rest)
		copy(data, head)
		got, err := readN(r, data[len(head):cap(data)])
		if err != nil {
			return nil, err
		}
		return Decode(data[:len(head)+got])
	}
	data := head
	for rest > 0 {
		n := int(min(rest, max(firstChunk, int64(len(data)))))
		grown := make([]byte, len(data), len(data)+n)
		copy(grown, data)
		got, err := readN(r, grown[len(data):cap(grown)])
		if err != nil {
			return nil, err
		}
		data = grown[:len(data)+got]
		rest -= int64(got)
		if got < n {
			break // the end of the input
		}
	}
	return Decode(data)
}

// firstChunk is the first buffer readVfskit reads into past the header when
// it does not know the file's size.
const firstChunk = 256 << 10

// knownSize returns how many bytes r has left after head, read from its
// start, where r can tell: a vfs.StreamStater (which, after a read, asks
// nothing more), an *os.File or *bytes.Reader, or with seek set any
// io.Seeker; -1 otherwise.
func knownSize(r io.Reader, head []byte, seek bool) int64 {
	if s, ok := r.(vfs.StreamStater); ok {
		if st, err := s.Stat(); err == nil && st.Size >= int64(len(head)) {
			return st.Size - int64(len(head))
		}
	}
	switch r.(type) {
	case *os.File, *bytes.Reader:
		seek = true
	}
	if seek {
		return remaining(r)
	}
	return -1
}

// Steps of readFlink: a file up to firstStep bytes (where r tells its size,
// up to maxWhole) is read in one go, and larger ones in steps that double.
const (
	firstStep = 1 << 20
	maxWhole  = 16 << 20
)

// readFlink reads and decodes a Flink file whose first bytes are head.
func readFlink(r io.Reader, head []byte) (*Metadata, error) {
	step := firstStep
	if left := knownSize(r, head, true); left >= 0 && left < maxWhole {
		step = int(left) + 1 // the whole file and one byte more, which reveals growth
	}
	data := head
	for {
		grown := make([]byte, len(data), len(data)+step)
		copy(grown, data)
		got, err := readN(r, grown[len(data):cap(grown)])
		if err != nil {
			return nil, err
		}
		data = grown[:len(data)+got]
		if got < step {
			return Decode(data) // the whole file
		}
		m, short, err := decodeFlinkPart(data)
		switch {
		case err == nil:
			// The metadata ends exactly here: so must the file.
			var one [1]byte
			if n, err := io.ReadFull(r, one[:]); n == 0 && errors.Is(err, io.EOF) {
				return m, nil
			} else if n == 0 {
				return nil, fmt.Errorf("metadata: reading: %w", err)
			}
			return nil, corruptAt(len(data), "unexpected bytes after the end of the metadata")
		case !short:
			return nil, err
		}
		step = len(data) // double
	}
}

// readN reads into buf until it is full or the input ends, and returns how
// many bytes it read.
func readN(r io.Reader, buf []byte) (int, error) {
	n, err := io.ReadFull(r, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return n, fmt.Errorf("metadata: reading: %w", err)
	}
	return n, nil
}

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

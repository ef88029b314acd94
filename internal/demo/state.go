package demo

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Counts is the keyed state of the word count: word → number of occurrences.
type Counts map[string]int64

// stateMagic starts every serialized Counts, with a version byte after it.
var stateMagic = []byte("WCST\x01")

// maxWordLen bounds a key on restore, so a corrupted state cannot make the job
// allocate unbounded memory.
const maxWordLen = 1 << 16

// WriteTo serializes the counts in key order (so equal states give equal
// bytes): magic, uvarint entry count, then per entry uvarint key length, key,
// uvarint count.
func (c Counts) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	n, _ := bw.Write(stateMagic)
	total := int64(n)
	var buf [binary.MaxVarintLen64]byte
	put := func(v uint64) {
		n, _ := bw.Write(buf[:binary.PutUvarint(buf[:], v)])
		total += int64(n)
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	put(uint64(len(keys)))
	for _, k := range keys {
		put(uint64(len(k)))
		n, _ := bw.WriteString(k)
		total += int64(n)
		put(uint64(c[k]))
	}
	return total, bw.Flush()
}

// ReadCounts decodes what Counts.WriteTo wrote. A truncated or malformed state
// fails with an error that says what is wrong.
func ReadCounts(r io.Reader) (Counts, error) {
	br := bufio.NewReader(r)
	magic := make([]byte, len(stateMagic))
	if _, err := io.ReadFull(br, magic); err != nil {
		return nil, fmt.Errorf("word-count state: reading header: %w", noEOF(err))
	}
	if string(magic) != string(stateMagic) {
		return nil, fmt.Errorf("word-count state: bad header %q (expected %q)", magic, stateMagic)
	}
	n, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, fmt.Errorf("word-count state: reading entry count: %w", noEOF(err))
	}
	c := make(Counts, min(n, 1<<16))
	for i := uint64(0); i < n; i++ {
		l, err := binary.ReadUvarint(br)
		if err != nil {
			return nil, fmt.Errorf("word-count state: entry %d: %w", i, noEOF(err))
		}
		if l > maxWordLen {
			return nil, fmt.Errorf("word-count state: entry %d: key length %d exceeds %d", i, l, maxWordLen)
		}
		key := make([]byte, l)
		if _, err := io.ReadFull(br, key); err != nil {
			return nil, fmt.Errorf("word-count state: entry %d: %w", i, noEOF(err))
		}
		v, err := binary.ReadUvarint(br)
		if err != nil {
			return nil, fmt.Errorf("word-count state: entry %d: %w", i, noEOF(err))
		}
		c[string(key)] = int64(v)
	}
	switch _, err := br.ReadByte(); {
	case err == nil:
		return nil, errors.New("word-count state: trailing bytes after the last entry")
	case err != io.EOF: // a failed read is not trailing bytes
		return nil, fmt.Errorf("word-count state: after the last entry: %w", err)
	}
	return c, nil
}

// noEOF turns a premature EOF into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Diff compares got with want and describes the first difference in key order,
// or returns "" when they are equal.
func Diff(got, want Counts) string {
	keys := make([]string, 0, len(want)+len(got))
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	diffs := 0
	first := ""
	for _, k := range keys {
		if got[k] != want[k] {
			if diffs == 0 {
				first = fmt.Sprintf("word %q counted %d times, the failure-free run counted %d", k, got[k], want[k])
			}
			diffs++
		}
	}
	if diffs == 0 {
		return ""
	}
	if diffs > 1 {
		first += fmt.Sprintf(" (and %d more words differ)", diffs-1)
	}
	return first
}

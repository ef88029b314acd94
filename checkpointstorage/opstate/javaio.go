package opstate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// errShort is what a reader returns for bytes that end early.
var errShort = errors.New("unexpected end of the bytes")

// reader reads what Java's DataOutputStream writes: big-endian integers,
// booleans as one byte, strings as writeUTF's modified UTF-8. It never reads
// past its bytes and allocates nothing a length claims before the bytes are
// there.
type reader struct {
	b   []byte
	pos int
	err error
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = fmt.Errorf("at byte %d: %w", r.pos, err)
	}
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.pos {
		r.fail(errShort)
		return nil
	}
	p := r.b[r.pos : r.pos+n]
	r.pos += n
	return p
}

func (r *reader) u8() byte {
	p := r.take(1)
	if p == nil {
		return 0
	}
	return p[0]
}

func (r *reader) i32() int32 {
	p := r.take(4)
	if p == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(p))
}

func (r *reader) i64() int64 {
	p := r.take(8)
	if p == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(p))
}

// boolean reads Java's writeBoolean, which writes 0 or 1.
func (r *reader) boolean() bool {
	switch b := r.u8(); b {
	case 0:
		return false
	case 1:
		return true
	default:
		r.fail(fmt.Errorf("a boolean byte of %d, expected 0 or 1", b))
		return false
	}
}

// utf reads Java's writeUTF: an unsigned 16-bit length and that many bytes of
// modified UTF-8, accepted only in the form writeUTF writes (so that writing
// the string again gives the same bytes).
func (r *reader) utf() string {
	n := r.take(2)
	if n == nil {
		return ""
	}
	p := r.take(int(binary.BigEndian.Uint16(n)))
	if p == nil {
		return ""
	}
	s, err := decodeModifiedUTF8(p)
	if err != nil {
		r.fail(err)
	}
	return s
}

// count reads an int count of items that take at least min bytes each, and
// refuses a count the bytes left cannot hold.
func (r *reader) count(what string, min int) int {
	n := r.i32()
	if r.err != nil {
		return 0
	}
	if n < 0 || int64(n)*int64(min) > int64(len(r.b)-r.pos) {
		r.fail(fmt.Errorf("%s count %d, but only %d bytes are left", what, n, len(r.b)-r.pos))
		return 0
	}
	return int(n)
}

// end fails unless every byte was read.
func (r *reader) end() error {
	if r.err == nil && r.pos != len(r.b) {
		r.fail(fmt.Errorf("%d unexpected bytes after the end", len(r.b)-r.pos))
	}
	return r.err
}

// decodeModifiedUTF8 decodes Java's modified UTF-8 (NUL as C0 80, characters
// beyond the BMP as two 3-byte surrogates), accepting only what Java's
// encoder writes.
func decodeModifiedUTF8(p []byte) (string, error) {
	units := make([]uint16, 0, len(p))
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c != 0 && c < 0x80:
			units = append(units, uint16(c))
			i++
		case c&0xe0 == 0xc0:
			if i+1 >= len(p) || p[i+1]&0xc0 != 0x80 {
				return "", fmt.Errorf("malformed modified UTF-8 at byte %d of the string", i)
			}
			u := uint16(c&0x1f)<<6 | uint16(p[i+1]&0x3f)
			if u != 0 && u < 0x80 {
				return "", fmt.Errorf("overlong modified UTF-8 at byte %d of the string", i)
			}
			units = append(units, u)
			i += 2
		case c&0xf0 == 0xe0:
			if i+2 >= len(p) || p[i+1]&0xc0 != 0x80 || p[i+2]&0xc0 != 0x80 {
				return "", fmt.Errorf("malformed modified UTF-8 at byte %d of the string", i)
			}
			u := uint16(c&0x0f)<<12 | uint16(p[i+1]&0x3f)<<6 | uint16(p[i+2]&0x3f)
			if u < 0x800 {
				return "", fmt.Errorf("overlong modified UTF-8 at byte %d of the string", i)
			}
			units = append(units, u)
			i += 3
		default:
			return "", fmt.Errorf("malformed modified UTF-8 at byte %d of the string", i)
		}
	}
	s := string(utf16.Decode(units))
	if !utf8.ValidString(s) || len(utf16.Encode([]rune(s))) != len(units) || !sameUnits(units, utf16.Encode([]rune(s))) {
		return "", errors.New("a string with an unpaired surrogate, which this tool cannot write back exactly")
	}
	return s, nil
}

func sameUnits(a, b []uint16) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// writer writes what reader reads.
type writer struct{ b []byte }

func (w *writer) u8(v byte)    { w.b = append(w.b, v) }
func (w *writer) i32(v int32)  { w.b = binary.BigEndian.AppendUint32(w.b, uint32(v)) }
func (w *writer) i64(v int64)  { w.b = binary.BigEndian.AppendUint64(w.b, uint64(v)) }
func (w *writer) raw(p []byte) { w.b = append(w.b, p...) }
func (w *writer) boolean(v bool) {
	if v {
		w.u8(1)
	} else {
		w.u8(0)
	}
}

// utf writes s as Java's writeUTF does; it fails for a string longer than
// 65535 bytes in modified UTF-8, as Java's does.
func (w *writer) utf(s string) error {
	var p []byte
	for _, u := range utf16.Encode([]rune(s)) {
		switch {
		case u != 0 && u < 0x80:
			p = append(p, byte(u))
		case u < 0x800:
			p = append(p, 0xc0|byte(u>>6), 0x80|byte(u&0x3f))
		default:
			p = append(p, 0xe0|byte(u>>12), 0x80|byte(u>>6&0x3f), 0x80|byte(u&0x3f))
		}
	}
	if len(p) > 0xffff {
		return fmt.Errorf("the string %.40q… takes %d bytes in modified UTF-8, more than writeUTF's 65535", s, len(p))
	}
	w.b = binary.BigEndian.AppendUint16(w.b, uint16(len(p)))
	w.b = append(w.b, p...)
	return nil
}

// flinkString reads Flink's StringUtils.writeNullableString: a boolean, then
// for a non-null string StringValue.writeString's form (the length plus one
// and each UTF-16 unit as 7-bit groups, lowest first).
func (r *reader) flinkString() (s string, present bool) {
	if !r.boolean() {
		return "", false
	}
	n := r.varint()
	if r.err != nil {
		return "", true
	}
	if n == 0 {
		r.fail(errors.New("a null string where writeNullableString wrote a present one"))
		return "", true
	}
	n--
	if int64(n) > int64(len(r.b)-r.pos) {
		r.fail(fmt.Errorf("a string of %d characters, but only %d bytes are left", n, len(r.b)-r.pos))
		return "", true
	}
	units := make([]uint16, 0, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		c := r.varint()
		if c > 0xffff {
			r.fail(fmt.Errorf("a character of %d, beyond 16 bits", c))
		}
		units = append(units, uint16(c))
	}
	return string(utf16.Decode(units)), true
}

// varint reads StringValue's variable-length int (at most 5 bytes).
func (r *reader) varint() uint32 {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		b := r.u8()
		if r.err != nil {
			return 0
		}
		v |= uint32(b&0x7f) << shift
		if b < 0x80 {
			return v
		}
	}
	r.fail(errors.New("a variable-length int of more than 5 bytes"))
	return 0
}

func (w *writer) varint(v uint32) {
	for v >= 0x80 {
		w.u8(byte(v) | 0x80)
		v >>= 7
	}
	w.u8(byte(v))
}

// flinkString writes what reader.flinkString reads.
func (w *writer) flinkString(s string, present bool) {
	w.boolean(present)
	if !present {
		return
	}
	units := utf16.Encode([]rune(s))
	w.varint(uint32(len(units)) + 1)
	for _, u := range units {
		w.varint(uint32(u))
	}
}

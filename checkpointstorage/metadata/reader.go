package metadata

import (
	"encoding/binary"
	"reflect"
	"unicode/utf8"
)

// reader decodes big-endian values (Java's DataInputStream) from b. The first
// error sticks: later reads return zero values, so decoders check err at the
// points where they loop or allocate. Every count is checked against the bytes
// left before anything is allocated for it.
type reader struct {
	b   []byte
	off int
	err error
	// budget is how many more bytes of memory the model may take; limited
	// says whether it applies.
	budget  int64
	limited bool
	// short is set when the error is that the input ended too soon (a
	// length, a count or the model's budget needs more bytes than there
	// are): decoding a longer prefix of the file may get further (Read).
	short bool
}

// Memory bounds of decoding: the model built from a file of n bytes takes
// at most modelFactor × n + modelSlack bytes (as counted by charge: every
// slice, string, byte copy and handle the decoder allocates), which keeps the
// allocations of a decode below 4 × n + 1 MiB. Real files need far less
// (Flink's about 1 to 2 × their size, vfskit's up to about 3 ×).
const (
	modelFactor = 4
	modelSlack  = 512 << 10
)

func newReader(b []byte) reader {
	return reader{b: b, budget: modelFactor*int64(len(b)) + modelSlack, limited: true}
}

// charge accounts for n bytes of model about to be allocated, failing the
// decode when the model would outgrow its bound.
func (r *reader) charge(n int64) bool {
	if !r.limited || r.err != nil {
		return r.err == nil
	}
	r.budget -= n
	if r.budget < 0 {
		r.short = r.err == nil
		r.fail("the decoded model would take more than %d × the file's %d bytes + %d KiB of memory", modelFactor, len(r.b), modelSlack>>10)
		return false
	}
	return true
}

// chargeHandle charges for a handle just built (its struct and the interface
// value pointing to it).
func (r *reader) chargeHandle(h Handle) {
	if !isNil(h) {
		r.charge(int64(reflect.TypeOf(h).Elem().Size()) + 16)
	}
}

// alloc charges for n elements of size bytes each.
func (r *reader) alloc(n int, size uintptr) bool { return r.charge(int64(n) * int64(size)) }

func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = corruptAt(r.off, format, args...)
	}
}

// failAt records an error at byte offset off.
func (r *reader) failAt(off int, format string, args ...any) {
	if r.err == nil {
		r.err = corruptAt(off, format, args...)
	}
}

func (r *reader) take(n int, what string) []byte { return r.takes(n, what, "") }

// takes is take of what+suffix, concatenated only for an error (decoding
// allocates nothing for its labels).
func (r *reader) takes(n int, what, suffix string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > r.left() {
		r.short = n >= 0
		r.fail("%s%s of %d bytes runs past the end of the file (%d bytes left)", what, suffix, n, r.left())
		return nil
	}
	v := r.b[r.off : r.off+n]
	r.off += n
	return v
}

func (r *reader) u8(what string) byte { return r.u8s(what, "") }

func (r *reader) u8s(what, suffix string) byte {
	v := r.takes(1, what, suffix)
	if v == nil {
		return 0
	}
	return v[0]
}

// boolean reads a byte that must be 0 or 1 (Java's writeBoolean, or a
// presence marker): readBoolean would take any other byte as true, which
// would not encode back to itself.
func (r *reader) boolean(what string) bool {
	at := r.off
	switch b := r.u8(what); {
	case r.err != nil || b == 0:
		return false
	case b != 1:
		r.failAt(at, "%s %d, expected 0 or 1", what, b)
		return false
	}
	return true
}

func (r *reader) u16(what string) uint16 {
	v := r.take(2, what)
	if v == nil {
		return 0
	}
	return binary.BigEndian.Uint16(v)
}

func (r *reader) i32(what string) int32 { return r.i32s(what, "") }

func (r *reader) i32s(what, suffix string) int32 {
	v := r.takes(4, what, suffix)
	if v == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(v))
}

func (r *reader) i64(what string) int64 {
	v := r.take(8, what)
	if v == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

// count reads an int32 element count and checks that count elements of at
// least minSize bytes each fit in the bytes left.
func (r *reader) count(what string, minSize int) int { return r.counts("", what, minSize) }

// counts is count of prefix+what (concatenated only for an error).
func (r *reader) counts(prefix, what string, minSize int) int {
	at := r.off
	n := r.i32s(prefix, what)
	if r.err != nil {
		return 0
	}
	if n < 0 {
		r.failAt(at, "negative %s%s %d", prefix, what, n)
		return 0
	}
	if int64(n)*int64(minSize) > int64(r.left()) {
		r.short = true
		r.failAt(at, "%s%s %d needs at least %d bytes, only %d are left", prefix, what, n, int64(n)*int64(minSize), r.left())
		return 0
	}
	return int(n)
}

// bytes reads an int32 length and that many bytes (copied).
func (r *reader) bytes(what string) []byte {
	at := r.off
	n := r.i32s(what, " length")
	if r.err != nil {
		return nil
	}
	if n < 0 {
		r.failAt(at, "negative %s length %d", what, n)
		return nil
	}
	v := r.take(int(n), what)
	if v == nil || !r.charge(int64(n)) {
		return nil
	}
	return append([]byte(nil), v...)
}

// int64s reads n longs.
func (r *reader) int64s(n int, what string) []int64 {
	v := r.take(8*n, what)
	if v == nil || n == 0 || !r.alloc(n, 8) {
		return nil
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(binary.BigEndian.Uint64(v[8*i:]))
	}
	return out
}

// utf reads a string written by Java's DataOutput.writeUTF: a 2-byte length
// and modified UTF-8. Only what writeUTF produces is accepted (so that
// encoding gives the same bytes back): no raw NUL, no overlong forms other
// than C0 80 for NUL, supplementary characters as surrogate pairs.
func (r *reader) utf(what string) string {
	at := r.off
	v := r.takes(2, what, " length")
	if v == nil {
		return ""
	}
	n := int(binary.BigEndian.Uint16(v))
	b := r.take(n, what)
	if b == nil || !r.charge(int64(2*n)) {
		return ""
	}
	s, ok := decodeModifiedUTF8(b)
	if !ok {
		r.failAt(at, "%s is not Java modified UTF-8", what)
		return ""
	}
	return s
}

func decodeModifiedUTF8(b []byte) (string, bool) {
	ascii := true
	for _, c := range b {
		if c == 0 {
			return "", false
		}
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b), true
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0:
			return "", false
		case c < 0x80:
			out = append(out, c)
			i++
		case c&0xE0 == 0xC0:
			if i+1 >= len(b) || b[i+1]&0xC0 != 0x80 {
				return "", false
			}
			v := rune(c&0x1F)<<6 | rune(b[i+1]&0x3F)
			if v != 0 && v < 0x80 {
				return "", false
			}
			out = utf8.AppendRune(out, v)
			i += 2
		case c&0xF0 == 0xE0:
			v, ok := three(b, i)
			if !ok || v < 0x800 {
				return "", false
			}
			i += 3
			if v >= 0xD800 && v <= 0xDBFF { // high surrogate: a low one must follow
				lo, ok := three(b, i)
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return "", false
				}
				v = 0x10000 + (v-0xD800)<<10 + (lo - 0xDC00)
				i += 3
			} else if v >= 0xDC00 && v <= 0xDFFF {
				return "", false
			}
			out = utf8.AppendRune(out, v)
		default:
			return "", false
		}
	}
	return string(out), true
}

func three(b []byte, i int) (rune, bool) {
	if i+2 >= len(b) || b[i]&0xF0 != 0xE0 || b[i+1]&0xC0 != 0x80 || b[i+2]&0xC0 != 0x80 {
		return 0, false
	}
	return rune(b[i]&0x0F)<<12 | rune(b[i+1]&0x3F)<<6 | rune(b[i+2]&0x3F), true
}

// appendModifiedUTF8 appends s as Java's writeUTF does; it fails when s is
// not valid UTF-8 or encodes to more than 65535 bytes.
func appendModifiedUTF8(b []byte, s string, what string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return b, invalid("%s %q is not valid UTF-8", what, s)
	}
	start := len(b)
	b = append(b, 0, 0)
	for _, c := range s {
		switch {
		case c != 0 && c < 0x80:
			b = append(b, byte(c))
		case c < 0x800:
			b = append(b, 0xC0|byte(c>>6), 0x80|byte(c&0x3F))
		case c < 0x10000:
			b = append3(b, c)
		default:
			c -= 0x10000
			b = append3(b, 0xD800+(c>>10))
			b = append3(b, 0xDC00+(c&0x3FF))
		}
	}
	n := len(b) - start - 2
	if n > 0xFFFF {
		return b[:start], invalid("%s of %d bytes exceeds writeUTF's 65535", what, n)
	}
	binary.BigEndian.PutUint16(b[start:], uint16(n))
	return b, nil
}

func append3(b []byte, c rune) []byte {
	return append(b, 0xE0|byte(c>>12), 0x80|byte(c>>6&0x3F), 0x80|byte(c&0x3F))
}

package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

// jsonStream writes one indented JSON document piece by piece, so that a
// document with millions of elements never sits in memory whole: the bytes it
// writes are those json.Encoder (indent "  ", HTML not escaped) would write for
// the whole document, each piece redacted (vfs.Redact) as it goes out. Every
// piece starts at the beginning of a line and Redact never looks past a line,
// so redacting piece by piece hides what redacting the whole output would.
// The first error (of the writer or the encoder) is kept: nothing is written
// after it and document returns it.
type jsonStream struct {
	w   *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder // writes to buf
	err error
}

// jsonObject writes the members of an object that starts at indentation level
// level; jsonArray the elements of an array.
type (
	jsonObject struct {
		s     *jsonStream
		level int
		n     int
	}
	jsonArray jsonObject
)

func newJSONStream(w io.Writer) *jsonStream {
	s := &jsonStream{w: bufio.NewWriterSize(w, 64<<10)}
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false) // "&" stays "&", so Redact sees every parameter
	return s
}

// document writes one object as the whole document, followed by a newline, and
// flushes.
func (s *jsonStream) document(body func(o *jsonObject)) error {
	s.object(0, body)
	s.raw("\n")
	if s.err == nil {
		s.err = s.w.Flush()
	}
	return s.err
}

func (s *jsonStream) raw(text string) {
	if s.err == nil {
		_, s.err = s.w.WriteString(text)
	}
}

// encode returns v encoded as a value whose lines after the first are indented
// to level, without the encoder's final newline.
func (s *jsonStream) encode(v any, level int) string {
	s.buf.Reset()
	s.enc.SetIndent(indent(level), "  ")
	if err := s.enc.Encode(v); err != nil && s.err == nil {
		s.err = err
	}
	return strings.TrimSuffix(s.buf.String(), "\n")
}

func (s *jsonStream) object(level int, body func(o *jsonObject)) {
	s.raw("{")
	o := &jsonObject{s: s, level: level}
	body(o)
	if o.n > 0 {
		s.raw("\n" + indent(level))
	}
	s.raw("}")
}

func indent(level int) string { return strings.Repeat("  ", level) }

func (o *jsonObject) sep() {
	if o.n > 0 {
		o.s.raw(",")
	}
	o.n++
}

// fields writes the members of the struct (or map) v as members of o, in v's
// order.
func (o *jsonObject) fields(v any) {
	enc := o.s.encode(v, o.level)
	inner := strings.TrimSuffix(strings.TrimPrefix(enc, "{"), "\n"+indent(o.level)+"}")
	if inner == "}" || o.s.err != nil {
		return // no members
	}
	o.sep()
	o.s.raw(vfs.Redact(inner))
}

// array writes the member name, an array whose elements each writes.
func (o *jsonObject) array(name string, each func(a *jsonArray)) {
	o.sep()
	o.s.raw("\n" + indent(o.level+1) + o.s.encode(name, 0) + ": [")
	a := &jsonArray{s: o.s, level: o.level + 1}
	each(a)
	if a.n > 0 {
		o.s.raw("\n" + indent(o.level+1))
	}
	o.s.raw("]")
}

// more reports whether writing can go on: false after the first error, so
// that the loop filling an array stops there rather than rendering every
// remaining element for nothing.
func (a *jsonArray) more() bool { return a.s.err == nil }

// value writes v as the array's next element.
func (a *jsonArray) value(v any) {
	(*jsonObject)(a).sep()
	a.s.raw(vfs.Redact("\n" + indent(a.level+1) + a.s.encode(v, a.level+1)))
}

// object writes an object that body fills as the array's next element.
func (a *jsonArray) object(body func(o *jsonObject)) {
	(*jsonObject)(a).sep()
	a.s.raw("\n" + indent(a.level+1))
	a.s.object(a.level+1, body)
}

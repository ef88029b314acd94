package metadata

import (
	"encoding/binary"
	"strings"
)

// The tail of Flink's metadata from version 4 on is a CheckpointProperties
// object in Java's serialization stream format. This file parses that format
// (the subset a serializable object graph uses: objects, class descriptors,
// strings, enums, arrays, references, block data) far enough to find where the
// object ends and to read the snapshot type, its name and the savepoint format.

const (
	jMagic          = 0xACED
	jVersion        = 5
	tcNull          = 0x70
	tcReference     = 0x71
	tcClassDesc     = 0x72
	tcObject        = 0x73
	tcString        = 0x74
	tcArray         = 0x75
	tcClass         = 0x76
	tcBlockData     = 0x77
	tcEndBlockData  = 0x78
	tcReset         = 0x79
	tcBlockDataLong = 0x7A
	tcLongString    = 0x7C
	tcProxyClass    = 0x7D
	tcEnum          = 0x7E
	jBaseHandle     = 0x7E0000

	scWriteMethod    = 0x01
	scSerializable   = 0x02
	scExternalizable = 0x04
	scBlockData      = 0x08

	maxJavaDepth = 64
)

type jClassDesc struct {
	name   string
	flags  byte
	fields []jField
	super  *jClassDesc
}

type jField struct {
	code byte
	name string
}

// jObject is a deserialized object: its class name and its object-valued
// fields (strings, enums as *jEnum, objects as *jObject).
type jObject struct {
	class  string
	fields map[string]any
}

type jEnum struct {
	class, name string
}

type javaReader struct {
	*reader
	handles []any
	depth   int
}

// parseProperties parses the Java-serialized CheckpointProperties at the
// reader's position up to the end of the object.
func parseProperties(r *reader) *Properties {
	start := r.off
	j := &javaReader{reader: r}
	if h := r.take(4, "java stream header"); h != nil &&
		(binary.BigEndian.Uint16(h) != jMagic || binary.BigEndian.Uint16(h[2:]) != jVersion) {
		r.failAt(start, "checkpoint properties are not a Java serialization stream (header %x)", h)
	}
	if r.err != nil {
		return nil
	}
	v := j.content()
	if r.err != nil {
		return nil
	}
	p := &Properties{Raw: append([]byte(nil), r.b[start:r.off]...), SnapshotType: "unknown"}
	o, ok := v.(*jObject)
	if !ok || o.class != "org.apache.flink.runtime.checkpoint.CheckpointProperties" {
		return p
	}
	t, ok := o.fields["checkpointType"].(*jObject)
	if !ok {
		return p
	}
	switch {
	case strings.HasSuffix(t.class, ".SavepointType"):
		p.SnapshotType = "savepoint"
	case strings.HasSuffix(t.class, ".CheckpointType"):
		p.SnapshotType = "checkpoint"
	}
	p.Name, _ = t.fields["name"].(string)
	if f, ok := t.fields["formatType"].(*jEnum); ok {
		p.SavepointFormat = strings.ToLower(f.name)
	}
	return p
}

func (j *javaReader) newHandle(v any) int {
	j.handles = append(j.handles, v)
	return len(j.handles) - 1
}

func (j *javaReader) ref() any {
	at := j.off
	h := int64(j.i32("java reference")) - jBaseHandle
	if j.err != nil {
		return nil
	}
	if h < 0 || h >= int64(len(j.handles)) {
		j.failAt(at, "java reference to unknown handle %#x", h+jBaseHandle)
		return nil
	}
	return j.handles[h]
}

func (j *javaReader) jutf() string {
	return j.utf("java string")
}

// content reads one object (TC_OBJECT, TC_STRING, ...) and returns its value.
func (j *javaReader) content() any {
	if j.err != nil {
		return nil
	}
	j.depth++
	defer func() { j.depth-- }()
	if !j.charge(64) {
		return nil
	}
	if j.depth > maxJavaDepth {
		j.fail("java objects nested deeper than %d", maxJavaDepth)
		return nil
	}
	at := j.off
	tc := j.u8("java type code")
	switch tc {
	case tcNull:
		return nil
	case tcReference:
		return j.ref()
	case tcString:
		s := j.jutf()
		j.newHandle(s)
		return s
	case tcLongString:
		n := j.i64("java long string length")
		if n < 0 || n > int64(j.left()) {
			j.short = n >= 0 && j.err == nil
			j.failAt(at, "java long string of %d bytes runs past the end", n)
			return nil
		}
		s, ok := decodeModifiedUTF8(j.take(int(n), "java long string"))
		if !ok {
			j.failAt(at, "java long string is not modified UTF-8")
		}
		j.newHandle(s)
		return s
	case tcClassDesc, tcProxyClass:
		j.off--
		return j.classDesc()
	case tcClass:
		d := j.classDesc()
		j.newHandle(d)
		return d
	case tcEnum:
		d := j.classDesc()
		e := &jEnum{}
		if d != nil {
			e.class = d.name
		}
		j.newHandle(e)
		name, _ := j.content().(string)
		e.name = name
		return e
	case tcArray:
		return j.array()
	case tcObject:
		return j.object()
	case tcReset:
		j.handles = j.handles[:0]
		return j.content()
	}
	j.failAt(at, "unexpected java type code %#x", tc)
	return nil
}

// classDesc reads a class descriptor: TC_CLASSDESC, TC_PROXYCLASSDESC,
// TC_NULL or TC_REFERENCE.
func (j *javaReader) classDesc() *jClassDesc {
	if j.err != nil {
		return nil
	}
	at := j.off
	switch tc := j.u8("java class descriptor"); tc {
	case tcNull:
		return nil
	case tcReference:
		d, ok := j.ref().(*jClassDesc)
		if !ok && j.err == nil {
			j.failAt(at, "java reference is not a class descriptor")
		}
		return d
	case tcProxyClass:
		d := &jClassDesc{flags: scSerializable}
		j.newHandle(d)
		n := j.count("java proxy interface count", 2)
		for i := 0; i < n && j.err == nil; i++ {
			j.jutf()
		}
		j.annotation()
		d.super = j.classDesc()
		return d
	case tcClassDesc:
		d := &jClassDesc{name: j.jutf()}
		j.i64("java serialVersionUID")
		j.newHandle(d)
		d.flags = j.u8("java class flags")
		n := int(j.u16("java field count"))
		if j.err != nil {
			return nil
		}
		if n*3 > j.left() {
			j.short = j.err == nil
			j.fail("java field count %d exceeds the bytes left", n)
			return nil
		}
		if !j.alloc(n, 64) {
			return nil
		}
		d.fields = make([]jField, 0, n)
		for i := 0; i < n && j.err == nil; i++ {
			f := jField{code: j.u8("java field type"), name: j.jutf()}
			switch f.code {
			case 'B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z':
			case 'L', '[':
				j.content() // the field's class name
			default:
				j.fail("unknown java field type %q", f.code)
			}
			d.fields = append(d.fields, f)
		}
		j.annotation()
		d.super = j.classDesc()
		return d
	default:
		j.failAt(at, "unexpected java type code %#x for a class descriptor", tc)
		return nil
	}
}

// annotation skips contents up to TC_ENDBLOCKDATA.
func (j *javaReader) annotation() {
	for j.err == nil {
		switch tc := j.u8("java annotation"); tc {
		case tcEndBlockData:
			return
		case tcBlockData:
			j.take(int(j.u8("java block length")), "java block data")
		case tcBlockDataLong:
			j.take(int(j.i32("java block length")), "java block data")
		default:
			j.off--
			j.content()
		}
	}
}

func (j *javaReader) object() any {
	d := j.classDesc()
	if j.err != nil {
		return nil
	}
	if !j.charge(256) {
		return nil
	}
	o := &jObject{fields: map[string]any{}}
	if d != nil {
		o.class = d.name
	}
	j.newHandle(o)
	var chain []*jClassDesc
	for c := d; c != nil; c = c.super {
		if len(chain) > maxJavaDepth {
			j.fail("java class hierarchy deeper than %d", maxJavaDepth)
			return nil
		}
		chain = append(chain, c)
	}
	for i := len(chain) - 1; i >= 0 && j.err == nil; i-- {
		c := chain[i]
		switch {
		case c.flags&scExternalizable != 0:
			if c.flags&scBlockData == 0 {
				j.fail("java externalizable class %s without block data is not supported", c.name)
				return nil
			}
			j.annotation()
		case c.flags&scSerializable != 0:
			for _, f := range c.fields {
				if v := j.value(f.code); v != nil {
					o.fields[f.name] = v
				}
			}
			if c.flags&scWriteMethod != 0 {
				j.annotation()
			}
		}
	}
	return o
}

// value reads one field value of the type code.
func (j *javaReader) value(code byte) any {
	switch code {
	case 'B', 'Z':
		j.take(1, "java field")
	case 'C', 'S':
		j.take(2, "java field")
	case 'I', 'F':
		j.take(4, "java field")
	case 'J', 'D':
		j.take(8, "java field")
	default:
		return j.content()
	}
	return nil
}

func (j *javaReader) array() any {
	d := j.classDesc()
	j.newHandle(nil)
	if j.err != nil {
		return nil
	}
	if d == nil || len(d.name) < 2 || d.name[0] != '[' {
		j.fail("java array without an array class")
		return nil
	}
	size := map[byte]int{'B': 1, 'Z': 1, 'C': 2, 'S': 2, 'I': 4, 'F': 4, 'J': 8, 'D': 8}
	n := j.count("java array length", 1)
	if es, ok := size[d.name[1]]; ok {
		j.take(n*es, "java array")
		return nil
	}
	for i := 0; i < n && j.err == nil; i++ {
		j.content()
	}
	return nil
}

package metadata

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/vfskit/vfskit/vfs"
)

// vfskit's own format (version 1), big-endian:
//
//	magic    4 bytes  "VFKC"
//	version  2 bytes  1
//	length   4 bytes  number of body bytes
//	body     length bytes (below)
//	crc      4 bytes  CRC-32C (Castagnoli) of everything before it
//
// The body is the job id (16 bytes), the checkpoint id (varint), the
// timestamp (varint Unix seconds, uvarint nanoseconds), a flags byte (bit 0:
// savepoint), then the operators: a uvarint count, each operator being its id
// (string; Operator.UID), its parallelism and max parallelism (uvarints) and
// its subtasks: a uvarint count, each subtask being its index (uvarint) and
// its handles: a uvarint count, each handle a kind byte (1 inline, 2 file, 3
// relative file) followed by, for inline, the name (string) and the bytes
// (uvarint length + bytes); for file, the path (string, vfs.Path normal
// form), the size (varint) and the scope (byte: 0 exclusive, 1 shared); for
// relative file, the plain file name inside the checkpoint directory (string)
// and the size (varint). Strings are a uvarint length followed by UTF-8.

// VfskitVersion is the version of vfskit's format this package writes.
const VfskitVersion = 1

var vfskitMagic = [4]byte{'V', 'F', 'K', 'C'}

const (
	vfskitHeaderLen  = 4 + 2 + 4
	vfskitTrailerLen = 4
	vtagInline       = 1
	vtagFile         = 2
	vtagRelative     = 3
	vflagSavepoint   = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func isVfskit(data []byte) bool { return len(data) >= 4 && [4]byte(data[:4]) == vfskitMagic }

// VfskitLength returns the total length of the vfskit-format file whose first
// bytes are header (at least 10), and false when header is not vfskit's
// version 1. Readers use it to read no more than the file announces.
func VfskitLength(header []byte) (int64, bool) {
	if len(header) < vfskitHeaderLen || !isVfskit(header) || binary.BigEndian.Uint16(header[4:]) != VfskitVersion {
		return 0, false
	}
	return vfskitHeaderLen + int64(binary.BigEndian.Uint32(header[6:])) + vfskitTrailerLen, true
}

func encodeVfskit(m *Metadata) ([]byte, error) {
	if m.Version != 0 && m.Version != VfskitVersion {
		return nil, invalid("vfskit format version %d, this package writes version %d", m.Version, VfskitVersion)
	}
	if m.CheckpointID < 0 {
		return nil, invalid("Illegal negative checkpoint id: %d.", m.CheckpointID)
	}
	b := make([]byte, vfskitHeaderLen, 256)
	copy(b, vfskitMagic[:])
	binary.BigEndian.PutUint16(b[4:], VfskitVersion)
	b = append(b, m.JobID[:]...)
	b = binary.AppendVarint(b, m.CheckpointID)
	b = binary.AppendVarint(b, m.Timestamp.Unix())
	b = binary.AppendUvarint(b, uint64(m.Timestamp.Nanosecond()))
	var flags byte
	if m.IsSavepoint {
		flags |= vflagSavepoint
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(len(m.Operators)))
	for i, op := range m.Operators {
		if op.UID == "" {
			return nil, invalid("operator %d has an empty id (UID)", i)
		}
		if op.Parallelism < 0 || op.MaxParallelism < 0 {
			return nil, invalid("operator %q: negative parallelism %d or max parallelism %d", op.UID, op.Parallelism, op.MaxParallelism)
		}
		b = appendVString(b, op.UID)
		b = binary.AppendUvarint(b, uint64(op.Parallelism))
		b = binary.AppendUvarint(b, uint64(op.MaxParallelism))
		b = binary.AppendUvarint(b, uint64(len(op.Subtasks)))
		for _, st := range op.Subtasks {
			if st.Index < 0 {
				return nil, invalid("operator %q: negative subtask index %d", op.UID, st.Index)
			}
			b = binary.AppendUvarint(b, uint64(st.Index))
			b = binary.AppendUvarint(b, uint64(len(st.Handles)))
			for j, h := range st.Handles {
				var err error
				if b, err = appendVfskitHandle(b, h); err != nil {
					return nil, invalid("operator %q subtask %d handle %d: %v", op.UID, st.Index, j, err)
				}
			}
		}
	}
	body := len(b) - vfskitHeaderLen
	if body > math.MaxUint32 {
		return nil, invalid("metadata of %d bytes exceeds the 4 GiB limit of the format", body)
	}
	binary.BigEndian.PutUint32(b[6:], uint32(body))
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

func appendVfskitHandle(b []byte, h Handle) ([]byte, error) {
	h = unwrap(h)
	switch h := h.(type) {
	case *ByteStreamStateHandle:
		if h == nil {
			break
		}
		b = append(b, vtagInline)
		b = appendVString(b, h.Name)
		b = binary.AppendUvarint(b, uint64(len(h.Data)))
		return append(b, h.Data...), nil
	case *FileStateHandle:
		if h == nil {
			break
		}
		if h.Path == "" {
			return nil, fmt.Errorf("file handle without a path")
		}
		var scope byte
		if h.Shared {
			scope = 1
		}
		b = append(b, vtagFile)
		b = appendVString(b, h.Path)
		b = binary.AppendVarint(b, h.Size)
		return append(b, scope), nil
	case *RelativeFileStateHandle:
		if h == nil {
			break
		}
		if err := CheckRelativeName(h.RelativePath); err != nil {
			return nil, err
		}
		b = append(b, vtagRelative)
		b = appendVString(b, h.RelativePath)
		return binary.AppendVarint(b, h.Size), nil
	default:
		if h != nil {
			return nil, fmt.Errorf("unsupported state handle type %T", h)
		}
	}
	return nil, fmt.Errorf("nil state handle")
}

// unwrap converts a Convertible into this package's handle.
func unwrap(h Handle) Handle {
	if c, ok := h.(Convertible); ok && !isNil(h) {
		return c.MetadataHandle()
	}
	return h
}

// CheckRelativeName accepts what vfskit's storage records as a relative
// handle: one plain file name, so a relative handle can never point outside
// its directory.
func CheckRelativeName(rel string) error {
	if rel == "" || rel == "." || rel == ".." || strings.ContainsAny(rel, "/\\") || !utf8.ValidString(rel) {
		return fmt.Errorf("invalid relative state path %q: expected a plain file name", rel)
	}
	return nil
}

func appendVString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func decodeVfskit(data []byte) (*Metadata, error) {
	if len(data) < vfskitHeaderLen {
		return nil, corrupt("truncated: %d bytes, shorter than the %d-byte header", len(data), vfskitHeaderLen)
	}
	if v := binary.BigEndian.Uint16(data[4:]); v != VfskitVersion {
		return nil, fmt.Errorf("metadata: vfskit metadata format version %d, this package reads version %d: %w", v, VfskitVersion, ErrUnsupportedVersion)
	}
	want, _ := VfskitLength(data)
	switch {
	case int64(len(data)) < want:
		return nil, corrupt("truncated: %d bytes, the header announces %d", len(data), want)
	case int64(len(data)) > want:
		return nil, corrupt("%d unexpected bytes after the end of the metadata", int64(len(data))-want)
	}
	end := len(data) - vfskitTrailerLen
	if got, sum := crc32.Checksum(data[:end], castagnoli), binary.BigEndian.Uint32(data[end:]); got != sum {
		return nil, corrupt("checksum mismatch: stored CRC-32C %08x, computed %08x", sum, got)
	}
	d := vdecoder{reader: newReader(data[:end])}
	d.off = vfskitHeaderLen
	m := d.metadata()
	if d.err != nil {
		return nil, d.err
	}
	return m, nil
}

type vdecoder struct{ reader }

func (d *vdecoder) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 || (n > 1 && d.b[d.off+n-1] == 0) { // overflow, short or not minimal
		d.fail("bad %s", what)
		return 0
	}
	d.off += n
	return v
}

func (d *vdecoder) varint(what string) int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.off:])
	if n <= 0 || (n > 1 && d.b[d.off+n-1] == 0) {
		d.fail("bad %s", what)
		return 0
	}
	d.off += n
	return v
}

// vcount reads a uvarint element count of elements of at least minSize bytes
// each; a count that cannot fit in the bytes left is corrupt.
func (d *vdecoder) vcount(what string, minSize int) int {
	at := d.off
	n := d.uvarint(what)
	if d.err == nil && n > uint64(d.left()/minSize) {
		d.failAt(at, "%s %d needs more than the %d bytes left", what, n, d.left())
		return 0
	}
	return int(n)
}

func (d *vdecoder) int(what string) int {
	at := d.off
	n := d.uvarint(what)
	if d.err == nil && n > math.MaxInt32 {
		d.failAt(at, "%s %d out of range", what, n)
	}
	return int(n)
}

func (d *vdecoder) str(what string) string {
	at := d.off
	n := d.uvarint(what)
	if d.err == nil && n > uint64(d.left()) {
		d.failAt(at, "%s of %d bytes runs past the end", what, n)
		return ""
	}
	b := d.take(int(n), what)
	if !d.charge(int64(n)) {
		return ""
	}
	if !utf8.Valid(b) {
		d.failAt(at, "%s is not valid UTF-8", what)
	}
	return string(b)
}

func (d *vdecoder) metadata() *Metadata {
	m := &Metadata{Format: FormatVfskit, Version: VfskitVersion}
	copy(m.JobID[:], d.take(16, "job id"))
	at := d.off
	if m.CheckpointID = d.varint("checkpoint id"); d.err == nil && m.CheckpointID < 0 {
		d.failAt(at, "negative checkpoint id %d", m.CheckpointID)
	}
	sec := d.varint("timestamp")
	at = d.off
	nsec := d.uvarint("timestamp nanoseconds")
	if d.err == nil && nsec >= uint64(time.Second) {
		d.failAt(at, "timestamp nanoseconds %d out of range", nsec)
	}
	m.Timestamp = time.Unix(sec, int64(nsec)).UTC()
	at = d.off
	flags := d.u8("flags")
	if d.err == nil && flags&^vflagSavepoint != 0 {
		d.failAt(at, "unknown flags %#x", flags)
	}
	m.IsSavepoint = flags&vflagSavepoint != 0
	n := d.vcount("operator count", 5)
	if n > 0 && d.alloc(n, unsafe.Sizeof(Operator{})) {
		m.Operators = make([]Operator, 0, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		m.Operators = append(m.Operators, d.operator())
	}
	if d.err == nil && d.left() != 0 {
		d.fail("%d unexpected bytes after the last operator", d.left())
	}
	return m
}

func (d *vdecoder) operator() Operator {
	var op Operator
	at := d.off
	if op.UID = d.str("operator id"); d.err == nil && op.UID == "" {
		d.failAt(at, "empty operator id")
	}
	op.Parallelism = d.int("parallelism")
	op.MaxParallelism = d.int("max parallelism")
	n := d.vcount("subtask count", 2)
	if n > 0 && d.alloc(n, unsafe.Sizeof(Subtask{})) {
		op.Subtasks = make([]Subtask, 0, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		st := Subtask{Index: d.int("subtask index")}
		nh := d.vcount("handle count", 3)
		if nh > 0 && d.alloc(nh, unsafe.Sizeof(Handle(nil))) {
			st.Handles = make([]Handle, 0, nh)
		}
		for j := 0; j < nh && d.err == nil; j++ {
			st.Handles = append(st.Handles, d.handle())
		}
		op.Subtasks = append(op.Subtasks, st)
	}
	return op
}

func (d *vdecoder) handle() Handle {
	h := d.handle0()
	d.chargeHandle(h)
	return h
}

func (d *vdecoder) handle0() Handle {
	at := d.off
	switch tag := d.u8("handle kind"); tag {
	case vtagInline:
		h := &ByteStreamStateHandle{Name: d.str("inline handle name")}
		at := d.off
		n := d.uvarint("inline state length")
		if d.err == nil && n > uint64(d.left()) {
			d.failAt(at, "inline state of %d bytes runs past the end", n)
			return nil
		}
		if !d.charge(int64(n)) {
			return nil
		}
		h.Data = append([]byte{}, d.take(int(n), "inline state")...)
		return h
	case vtagFile:
		at := d.off
		s := d.str("file path")
		if d.err != nil {
			return nil
		}
		p, err := vfs.ParsePath(s) // exact: the encoder wrote Path.String()
		if err != nil {
			d.failAt(at, "invalid file path %q", s)
		} else if p.String() != s { // the encoder writes Path.String(): anything else was not written by it
			d.failAt(at, "file path %q is not in normal form (%q)", s, p.String())
		}
		h := &FileStateHandle{Path: s, Size: d.varint("file size")}
		at = d.off
		scope := d.u8("scope")
		if d.err == nil && scope > 1 {
			d.failAt(at, "unknown state scope %d", scope)
		}
		h.Shared = scope == 1
		return h
	case vtagRelative:
		at := d.off
		h := &RelativeFileStateHandle{RelativePath: d.str("relative path")}
		if err := CheckRelativeName(h.RelativePath); d.err == nil && err != nil {
			d.failAt(at, "%v", err)
		}
		h.Size = d.varint("file size")
		return h
	default:
		if d.err == nil {
			d.failAt(at, "unknown handle kind %d", tag)
		}
	}
	return nil
}

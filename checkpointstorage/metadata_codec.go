package checkpointstorage

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vfskit/vfskit/vfs"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	handleTagInline   = 1
	handleTagFile     = 2
	handleTagRelative = 3
	flagSavepoint     = 1
)

// MarshalBinary encodes m in the binary format described on CheckpointMetadata.
// It fails (fs.ErrInvalid) on a negative checkpoint id, a negative parallelism or
// index, an empty operator id, and a nil or foreign state handle.
func (m *CheckpointMetadata) MarshalBinary() ([]byte, error) {
	if m == nil {
		return nil, invalidMetadata("nil metadata")
	}
	if m.CheckpointID < 0 {
		return nil, invalidMetadata(fmt.Sprintf("Illegal negative checkpoint id: %d.", m.CheckpointID))
	}
	b := make([]byte, metadataHeaderLen, 256)
	copy(b, metadataMagic[:])
	binary.BigEndian.PutUint16(b[4:], MetadataFormatVersion)

	b = append(b, m.JobID[:]...)
	b = binary.AppendVarint(b, m.CheckpointID)
	b = binary.AppendVarint(b, m.Timestamp.Unix())
	b = binary.AppendUvarint(b, uint64(m.Timestamp.Nanosecond()))
	var flags byte
	if m.IsSavepoint {
		flags |= flagSavepoint
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(len(m.Operators)))
	for i, op := range m.Operators {
		if op.OperatorID == "" {
			return nil, invalidMetadata(fmt.Sprintf("operator %d has an empty OperatorID", i))
		}
		if op.Parallelism < 0 || op.MaxParallelism < 0 {
			return nil, invalidMetadata(fmt.Sprintf("operator %q: negative parallelism %d or max parallelism %d", op.OperatorID, op.Parallelism, op.MaxParallelism))
		}
		b = appendString(b, op.OperatorID)
		b = binary.AppendUvarint(b, uint64(op.Parallelism))
		b = binary.AppendUvarint(b, uint64(op.MaxParallelism))
		b = binary.AppendUvarint(b, uint64(len(op.Subtasks)))
		for _, st := range op.Subtasks {
			if st.Index < 0 {
				return nil, invalidMetadata(fmt.Sprintf("operator %q: negative subtask index %d", op.OperatorID, st.Index))
			}
			b = binary.AppendUvarint(b, uint64(st.Index))
			b = binary.AppendUvarint(b, uint64(len(st.Handles)))
			for j, h := range st.Handles {
				var err error
				if b, err = appendHandle(b, h); err != nil {
					return nil, invalidMetadata(fmt.Sprintf("operator %q subtask %d handle %d: %v", op.OperatorID, st.Index, j, err))
				}
			}
		}
	}
	body := len(b) - metadataHeaderLen
	if body > math.MaxUint32 {
		return nil, invalidMetadata(fmt.Sprintf("metadata of %d bytes exceeds the 4 GiB limit of the format", body))
	}
	binary.BigEndian.PutUint32(b[6:], uint32(body))
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

func appendHandle(b []byte, h StreamStateHandle) ([]byte, error) {
	switch h := h.(type) {
	case *ByteStreamStateHandle:
		if h == nil {
			break
		}
		b = append(b, handleTagInline)
		b = appendString(b, h.Name)
		b = binary.AppendUvarint(b, uint64(len(h.Data)))
		return append(b, h.Data...), nil
	case *FileStateHandle:
		if h == nil {
			break
		}
		if h.FilePath.IsZero() {
			return nil, fmt.Errorf("file handle without a path")
		}
		b = append(b, handleTagFile)
		b = appendString(b, h.FilePath.String())
		b = binary.AppendVarint(b, h.Size)
		return append(b, byte(h.Scope)), nil
	case *RelativeFileStateHandle:
		if h == nil {
			break
		}
		if err := checkRelativePath(h.RelativePath); err != nil {
			return nil, err
		}
		b = append(b, handleTagRelative)
		b = appendString(b, h.RelativePath)
		return binary.AppendVarint(b, h.Size), nil
	default:
		if h != nil {
			return nil, fmt.Errorf("unsupported state handle type %T", h)
		}
	}
	return nil, fmt.Errorf("nil state handle")
}

// checkRelativePath accepts what FsCheckpointStateOutputStream records: one plain
// file name, so a relative handle can never point outside its directory.
func checkRelativePath(rel string) error {
	if rel == "" || rel == "." || rel == ".." || strings.ContainsAny(rel, "/\\") || !utf8.ValidString(rel) {
		return fmt.Errorf("invalid relative state path %q: expected a plain file name", rel)
	}
	return nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func invalidMetadata(msg string) error {
	return fmt.Errorf("checkpointstorage: cannot encode metadata: %s: %w", msg, fs.ErrInvalid)
}

// UnmarshalCheckpointMetadata decodes the binary format described on
// CheckpointMetadata. Relative state handles are resolved against checkpointDir,
// the directory the metadata was read from (a zero checkpointDir leaves their
// FilePath zero). Truncated, corrupted or foreign data fails with an error that
// errors.Is ErrCorruptMetadata; a newer format version with
// ErrUnsupportedMetadataVersion. The decoder never allocates more than the input
// size, whatever the input.
func UnmarshalCheckpointMetadata(data []byte, checkpointDir vfs.Path, opts ...Option) (*CheckpointMetadata, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if len(data) < len(metadataMagic) {
		if string(data) == string(metadataMagic[:len(data)]) {
			return nil, corrupt("truncated: %d bytes, shorter than the %d-byte header", len(data), metadataHeaderLen)
		}
		return nil, corrupt("not a checkpoint metadata file (wrong magic number)")
	}
	if [4]byte(data[:4]) != metadataMagic {
		return nil, corrupt("not a checkpoint metadata file (wrong magic number %x, expected %x)", data[:4], metadataMagic[:])
	}
	if len(data) < metadataHeaderLen {
		return nil, corrupt("truncated: %d bytes, shorter than the %d-byte header", len(data), metadataHeaderLen)
	}
	if v := binary.BigEndian.Uint16(data[4:]); v != MetadataFormatVersion {
		return nil, fmt.Errorf("checkpointstorage: metadata format version %d, this library reads version %d: %w", v, MetadataFormatVersion, ErrUnsupportedMetadataVersion)
	}
	bodyLen := uint64(binary.BigEndian.Uint32(data[6:]))
	want := uint64(metadataHeaderLen) + bodyLen + metadataTrailerLen
	switch {
	case uint64(len(data)) < want:
		return nil, corrupt("truncated: %d bytes, the header announces %d", len(data), want)
	case uint64(len(data)) > want:
		return nil, corrupt("%d unexpected bytes after the end of the metadata", uint64(len(data))-want)
	}
	end := metadataHeaderLen + int(bodyLen)
	if got, sum := crc32.Checksum(data[:end], castagnoli), binary.BigEndian.Uint32(data[end:]); got != sum {
		return nil, corrupt("checksum mismatch: stored CRC-32C %08x, computed %08x", sum, got)
	}
	d := decoder{b: data[metadataHeaderLen:end], dir: checkpointDir, registry: o.registry}
	m, err := d.metadata()
	if err != nil {
		return nil, corrupt("%v (at body offset %d)", err, d.off)
	}
	return m, nil
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("checkpointstorage: %w: %s", ErrCorruptMetadata, fmt.Sprintf(format, args...))
}

type decoder struct {
	b        []byte
	off      int
	dir      vfs.Path
	registry *vfs.Registry
}

type decodeError string

func (e decodeError) Error() string { return string(e) }

func (d *decoder) remaining() int { return len(d.b) - d.off }

func (d *decoder) bytes(n uint64, what string) ([]byte, error) {
	if n > uint64(d.remaining()) {
		return nil, decodeError(fmt.Sprintf("%s of %d bytes runs past the end", what, n))
	}
	v := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return v, nil
}

func (d *decoder) byte1(what string) (byte, error) {
	v, err := d.bytes(1, what)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

func (d *decoder) uvarint(what string) (uint64, error) {
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 || (n > 1 && d.b[d.off+n-1] == 0) { // overflow, short or not minimal
		return 0, decodeError("bad " + what)
	}
	d.off += n
	return v, nil
}

func (d *decoder) varint(what string) (int64, error) {
	v, n := binary.Varint(d.b[d.off:])
	if n <= 0 || (n > 1 && d.b[d.off+n-1] == 0) {
		return 0, decodeError("bad " + what)
	}
	d.off += n
	return v, nil
}

// count reads a uvarint element count; each element takes at least one byte, so a
// count larger than the remaining bytes is corrupt (and never allocated).
func (d *decoder) count(what string) (int, error) {
	n, err := d.uvarint(what)
	if err != nil {
		return 0, err
	}
	if n > uint64(d.remaining()) {
		return 0, decodeError(fmt.Sprintf("%s %d exceeds the remaining %d bytes", what, n, d.remaining()))
	}
	return int(n), nil
}

func (d *decoder) int(what string) (int, error) {
	n, err := d.uvarint(what)
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt32 {
		return 0, decodeError(fmt.Sprintf("%s %d out of range", what, n))
	}
	return int(n), nil
}

func (d *decoder) string(what string) (string, error) {
	n, err := d.uvarint(what + " length")
	if err != nil {
		return "", err
	}
	b, err := d.bytes(n, what)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", decodeError(what + " is not valid UTF-8")
	}
	return string(b), nil
}

func (d *decoder) metadata() (*CheckpointMetadata, error) {
	m := &CheckpointMetadata{}
	job, err := d.bytes(uint64(len(m.JobID)), "job id")
	if err != nil {
		return nil, err
	}
	copy(m.JobID[:], job)
	if m.CheckpointID, err = d.varint("checkpoint id"); err != nil {
		return nil, err
	}
	if m.CheckpointID < 0 {
		return nil, decodeError(fmt.Sprintf("negative checkpoint id %d", m.CheckpointID))
	}
	sec, err := d.varint("timestamp")
	if err != nil {
		return nil, err
	}
	nsec, err := d.uvarint("timestamp nanoseconds")
	if err != nil {
		return nil, err
	}
	if nsec >= uint64(time.Second) {
		return nil, decodeError(fmt.Sprintf("timestamp nanoseconds %d out of range", nsec))
	}
	m.Timestamp = time.Unix(sec, int64(nsec)).UTC()
	flags, err := d.byte1("flags")
	if err != nil {
		return nil, err
	}
	if flags&^flagSavepoint != 0 {
		return nil, decodeError(fmt.Sprintf("unknown flags %#x", flags))
	}
	m.IsSavepoint = flags&flagSavepoint != 0
	nops, err := d.count("operator count")
	if err != nil {
		return nil, err
	}
	if nops > 0 {
		m.Operators = make([]OperatorState, 0, nops)
	}
	for range nops {
		op, err := d.operator()
		if err != nil {
			return nil, err
		}
		m.Operators = append(m.Operators, op)
	}
	if d.remaining() != 0 {
		return nil, decodeError(fmt.Sprintf("%d unexpected bytes after the last operator", d.remaining()))
	}
	return m, nil
}

func (d *decoder) operator() (OperatorState, error) {
	var op OperatorState
	var err error
	if op.OperatorID, err = d.string("operator id"); err != nil {
		return op, err
	}
	if op.OperatorID == "" {
		return op, decodeError("empty operator id")
	}
	if op.Parallelism, err = d.int("parallelism"); err != nil {
		return op, err
	}
	if op.MaxParallelism, err = d.int("max parallelism"); err != nil {
		return op, err
	}
	n, err := d.count("subtask count")
	if err != nil {
		return op, err
	}
	if n > 0 {
		op.Subtasks = make([]SubtaskState, 0, n)
	}
	for range n {
		var st SubtaskState
		if st.Index, err = d.int("subtask index"); err != nil {
			return op, err
		}
		nh, err := d.count("handle count")
		if err != nil {
			return op, err
		}
		if nh > 0 {
			st.Handles = make([]StreamStateHandle, 0, nh)
		}
		for range nh {
			h, err := d.handle()
			if err != nil {
				return op, err
			}
			st.Handles = append(st.Handles, h)
		}
		op.Subtasks = append(op.Subtasks, st)
	}
	return op, nil
}

func (d *decoder) handle() (StreamStateHandle, error) {
	tag, err := d.byte1("handle kind")
	if err != nil {
		return nil, err
	}
	switch tag {
	case handleTagInline:
		name, err := d.string("inline handle name")
		if err != nil {
			return nil, err
		}
		n, err := d.uvarint("inline state length")
		if err != nil {
			return nil, err
		}
		data, err := d.bytes(n, "inline state")
		if err != nil {
			return nil, err
		}
		return &ByteStreamStateHandle{Name: name, Data: append([]byte{}, data...)}, nil
	case handleTagFile:
		s, err := d.string("file path")
		if err != nil {
			return nil, err
		}
		p, err := vfs.NewPath(s)
		if err != nil {
			return nil, decodeError(fmt.Sprintf("invalid file path %q", s))
		}
		if p.String() != s { // the encoder writes Path.String(): anything else was not written by it
			return nil, decodeError(fmt.Sprintf("file path %q is not in normal form (%q)", s, p.String()))
		}
		size, err := d.varint("file size")
		if err != nil {
			return nil, err
		}
		scope, err := d.byte1("scope")
		if err != nil {
			return nil, err
		}
		if scope > byte(Shared) {
			return nil, decodeError(fmt.Sprintf("unknown state scope %d", scope))
		}
		return &FileStateHandle{FilePath: p, Size: size, Scope: StateScope(scope), registry: d.registry}, nil
	case handleTagRelative:
		rel, err := d.string("relative path")
		if err != nil {
			return nil, err
		}
		if err := checkRelativePath(rel); err != nil {
			return nil, decodeError(err.Error())
		}
		size, err := d.varint("file size")
		if err != nil {
			return nil, err
		}
		h := &RelativeFileStateHandle{FileStateHandle: FileStateHandle{Size: size, registry: d.registry}, RelativePath: rel}
		if !d.dir.IsZero() {
			h.FilePath = d.dir.Join(rel)
		}
		return h, nil
	}
	return nil, decodeError(fmt.Sprintf("unknown handle kind %d", tag))
}

package checkpointstorage

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/vfskit/vfskit/vfs"
)

// ErrInvalidReference is wrapped by the errors of NewLocationReference and
// DecodePathFromReference.
var ErrInvalidReference = errors.New("invalid checkpoint storage location reference")

// referenceMagic is Flink's magic number in front of an encoded path.
var referenceMagic = [4]byte{0x05, 0x5F, 0x3F, 0x18}

// LocationReference is Flink's CheckpointStorageLocationReference: the bytes a
// coordinator sends to its tasks so they find a checkpoint's storage location.
// The zero value is the default reference ("the checkpoint's default
// directory"); others encode a path (EncodePathAsReference). A LocationReference
// is immutable.
type LocationReference struct {
	b string // "" for the default reference
}

// DefaultLocationReference returns the default reference, the zero value.
func DefaultLocationReference() LocationReference { return LocationReference{} }

// NewLocationReference returns the reference with the given encoded bytes (which
// are copied). Empty bytes fail with ErrInvalidReference: the default reference is
// DefaultLocationReference.
func NewLocationReference(b []byte) (LocationReference, error) {
	if len(b) == 0 {
		return LocationReference{}, fmt.Errorf("%w: encoded reference must not be empty (use DefaultLocationReference)", ErrInvalidReference)
	}
	return LocationReference{b: string(b)}, nil
}

// IsDefault reports whether r is the default reference.
func (r LocationReference) IsDefault() bool { return r.b == "" }

// Bytes returns a copy of the encoded bytes; nil for the default reference.
func (r LocationReference) Bytes() []byte {
	if r.b == "" {
		return nil
	}
	return []byte(r.b)
}

// String returns "(default)" or the bytes in hex, as Flink's toString does.
func (r LocationReference) String() string {
	if r.IsDefault() {
		return "(default)"
	}
	return hex.EncodeToString([]byte(r.b))
}

// EncodePathAsReference encodes p as Flink does: the magic number 05 5F 3F 18
// followed by the UTF-8 bytes of p.String().
func EncodePathAsReference(p vfs.Path) LocationReference {
	return LocationReference{b: string(referenceMagic[:]) + p.String()}
}

// DecodePathFromReference decodes the path of a reference made by
// EncodePathAsReference. It fails, wrapping ErrInvalidReference, with Flink's
// messages: "Cannot decode default reference", "Reference too short.",
// "Reference starts with the wrong magic number" and "Reference cannot be
// decoded to a path".
func DecodePathFromReference(r LocationReference) (vfs.Path, error) {
	if r.IsDefault() {
		return vfs.Path{}, fmt.Errorf("%w: Cannot decode default reference", ErrInvalidReference)
	}
	b := []byte(r.b)
	if len(b) <= len(referenceMagic) {
		return vfs.Path{}, fmt.Errorf("%w: Reference too short. (%s: %d bytes, expected the magic number %x and a path)", ErrInvalidReference, r, len(b), referenceMagic[:])
	}
	if !bytes.Equal(b[:len(referenceMagic)], referenceMagic[:]) {
		return vfs.Path{}, fmt.Errorf("%w: Reference starts with the wrong magic number (%x, expected %x)", ErrInvalidReference, b[:len(referenceMagic)], referenceMagic[:])
	}
	s := b[len(referenceMagic):]
	if !utf8.Valid(s) {
		return vfs.Path{}, fmt.Errorf("%w: Reference cannot be decoded to a path: invalid UTF-8 in %q", ErrInvalidReference, vfs.Redact(string(s)))
	}
	p, err := vfs.ParsePath(string(s)) // exact: what EncodePathAsReference wrote, byte for byte
	if err != nil {
		return vfs.Path{}, fmt.Errorf("%w: Reference cannot be decoded to a path: %w", ErrInvalidReference, err)
	}
	return p, nil
}

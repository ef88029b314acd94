package metadata

import "io"

// Encode writes m in its Format and Version (zero: the newest version of the
// format). A model the version cannot record (an operator uid before version
// 5, merged channel state before 6, vfskit handles in Flink's format, a nil
// or foreign handle, ...) fails with fs.ErrInvalid and says what. Decode
// followed by Encode gives the bytes that were decoded.
func Encode(m *Metadata) ([]byte, error) {
	if m == nil {
		return nil, invalid("nil metadata")
	}
	if m.Format == FormatFlink {
		return encodeFlink(m)
	}
	return encodeVfskit(m)
}

// MarshalBinary is Encode(m).
func (m *Metadata) MarshalBinary() ([]byte, error) { return Encode(m) }

// WriteTo writes Encode(m) to w. It implements io.WriterTo.
func (m *Metadata) WriteTo(w io.Writer) (int64, error) {
	b, err := Encode(m)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

package layer

import (
	"errors"
	"fmt"
	"io"

	"github.com/vfskit/vfskit/vfs"
)

// Input forwards every method of the input stream it embeds. Embed it in a
// layer's stream type and override what the layer changes.
type Input struct {
	vfs.InputStream
}

// Output forwards every method of the output stream it embeds, vfs.Aborter's
// Abort included. Embed it in a layer's stream type and override what the
// layer changes.
type Output struct {
	vfs.OutputStream
}

var (
	_ vfs.Aborter          = Output{}
	_ vfs.WrittenVersioner = Output{}
	_ vfs.StreamStater     = Input{}
	_ vfs.VersionStater    = Input{}
	_ vfs.VersionPinner    = Input{}
	_ vfs.RangeReader      = Input{}
	_ vfs.RangeWriter      = Output{}
)

// Stat calls the embedded stream's Stat (vfs.StreamStater), so that
// vfs.StatStream through a layer still costs no request where the stream
// below knows its file's status. A stream without one answers with an error
// wrapping errors.ErrUnsupported, and vfs.StatStream then asks the layer's
// Stat. A layer that changes what Stat reports (a size that differs from the
// stored one) overrides this Stat alike.
func (i Input) Stat() (vfs.FileStatus, error) {
	if s, ok := i.InputStream.(vfs.StreamStater); ok {
		return s.Stat()
	}
	return vfs.FileStatus{}, fmt.Errorf("layer: %w: the input stream below (%T) cannot tell its file's status", errors.ErrUnsupported, i.InputStream)
}

// Version calls the embedded stream's Version (vfs.VersionStater); a stream
// without one answers with an error wrapping errors.ErrUnsupported, and
// vfs.StreamVersion then uses Stat.
func (i Input) Version() (vfs.Version, error) {
	if s, ok := i.InputStream.(vfs.VersionStater); ok {
		return s.Version()
	}
	return vfs.Version{}, fmt.Errorf("layer: %w: the input stream below (%T) cannot tell its version", errors.ErrUnsupported, i.InputStream)
}

// PinsVersion calls the embedded stream's PinsVersion (vfs.VersionPinner);
// false for a stream without one.
func (i Input) PinsVersion() bool { return vfs.PinsVersion(i.InputStream) }

// KeepVersion calls the embedded stream's KeepVersion
// (vfs.WrittenVersioner); a stream without one ignores it.
func (o Output) KeepVersion() {
	if w, ok := o.OutputStream.(vfs.WrittenVersioner); ok {
		w.KeepVersion()
	}
}

// Version calls the embedded stream's Version (vfs.WrittenVersioner), so
// that vfs.WrittenVersion through a layer still costs no request where the
// stream below tells the version it published; a stream without one answers
// with an error wrapping errors.ErrUnsupported, and vfs.WrittenVersion then
// reads the file back. A layer whose Close may publish nothing although the
// stream below published (none does) overrides it.
func (o Output) Version() (vfs.Version, error) {
	if w, ok := o.OutputStream.(vfs.WrittenVersioner); ok {
		return w.Version()
	}
	return vfs.Version{}, fmt.Errorf("layer: %w: the output stream below (%T) cannot tell the version it published", errors.ErrUnsupported, o.OutputStream)
}

// Abort calls the embedded stream's Abort. A stream without one cannot be
// discarded that way: Abort then returns an error wrapping
// errors.ErrUnsupported and changes nothing (cancel the context given to
// Create instead, which vfs.Discard does too).
func (o Output) Abort() error {
	if a, ok := o.OutputStream.(vfs.Aborter); ok {
		return a.Abort()
	}
	return fmt.Errorf("layer: %w: the output stream below (%T) has no Abort; cancel the context given to Create", errors.ErrUnsupported, o.OutputStream)
}

// ReadsRanges calls the embedded stream's ReadsRanges (vfs.RangeReader);
// false for a stream without one. A layer whose stream changes, meters or
// fails reads (its own Read and ReadAt) overrides it to answer false, so that
// a copy in parallel ranges never goes around the layer.
func (i Input) ReadsRanges() bool {
	r, ok := i.InputStream.(vfs.RangeReader)
	return ok && r.ReadsRanges()
}

// OpenRange calls the embedded stream's OpenRange (vfs.RangeReader); a
// stream without one answers with an error wrapping errors.ErrUnsupported.
func (i Input) OpenRange(off, n int64) (io.ReadCloser, error) {
	if r, ok := i.InputStream.(vfs.RangeReader); ok {
		return r.OpenRange(off, n)
	}
	return nil, fmt.Errorf("layer: %w: the input stream below (%T) cannot read ranges", errors.ErrUnsupported, i.InputStream)
}

// WritesRanges calls the embedded stream's WritesRanges (vfs.RangeWriter);
// false for a stream without one. A layer whose stream changes, meters or
// fails writes (its own Write) overrides it to answer false.
func (o Output) WritesRanges() bool {
	w, ok := o.OutputStream.(vfs.RangeWriter)
	return ok && w.WritesRanges()
}

// WriteAt calls the embedded stream's WriteAt (vfs.RangeWriter); a stream
// without one answers with an error wrapping errors.ErrUnsupported.
func (o Output) WriteAt(p []byte, off int64) (int, error) {
	if w, ok := o.OutputStream.(vfs.RangeWriter); ok {
		return w.WriteAt(p, off)
	}
	return 0, fmt.Errorf("layer: %w: the output stream below (%T) cannot be written at offsets", errors.ErrUnsupported, o.OutputStream)
}

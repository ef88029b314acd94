package layer

import (
	"errors"
	"fmt"

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

var _ vfs.Aborter = Output{}

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

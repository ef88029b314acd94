package record

import (
	"context"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// RecoverableWriter is the writer below with each of its calls that take a
// context recorded under its layer.Op* name (layer.OpPersist, layer.OpCommit
// and their siblings), with the path given to Open (the zero Path for calls
// that have only a token).
func (f *FS) RecoverableWriter() (vfs.RecoverableWriter, error) {
	return layer.WrapRecoverable(f.Inner, layer.RecoverableHooks{
		Call: func(ctx context.Context, op string, p vfs.Path, call func(context.Context) error) error {
			err := call(ctx)
			f.add(op, p, vfs.Path{}, err)
			return err
		},
	})
}

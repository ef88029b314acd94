package limit

import (
	"context"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// RecoverableWriter is the writer below, its streams counted as output
// streams: Open and Recover take an output slot (waiting as Create does) and
// Close or CloseForCommit gives it back. Settings.StreamTimeout does not close
// a recoverable stream.
func (f *FS) RecoverableWriter() (vfs.RecoverableWriter, error) {
	return layer.WrapRecoverable(f.Inner, layer.RecoverableHooks{
		Call: func(ctx context.Context, op string, p vfs.Path, call func(context.Context) error) error {
			if op != layer.OpRecoverableOpen && op != layer.OpRecover {
				return call(ctx)
			}
			if err := f.acquire(ctx, op, p, true); err != nil {
				return err
			}
			err := call(ctx)
			if err != nil {
				f.release(true)
			}
			return err
		},
		Done: func(vfs.Path) { f.release(true) },
	})
}

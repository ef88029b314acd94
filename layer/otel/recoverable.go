package otel

import (
	"context"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// RecoverableWriter is the writer below, traced and counted: each call that
// takes a context (Open, Recover, RecoverForCommit, CleanupRecoverableState,
// Persist, CloseForCommit, Commit, CommitAfterRecovery) is a span named
// vfskit.<operation> (layer.OpPersist and its siblings), and the bytes
// written count as output.
func (f *FS) RecoverableWriter() (vfs.RecoverableWriter, error) {
	return layer.WrapRecoverable(f.Inner, layer.RecoverableHooks{
		Call: func(ctx context.Context, op string, p vfs.Path, call func(context.Context) error) error {
			ctx, o := f.begin(ctx, vfs.Op(op), p)
			err := call(ctx)
			o.end(ctx, err)
			return err
		},
		Write: func(_ vfs.Path, n int, _ error) {
			if n > 0 {
				f.io.Add(context.Background(), int64(n), f.writeSet)
			}
		},
	})
}

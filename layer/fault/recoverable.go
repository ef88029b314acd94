package fault

import (
	"context"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// Operations of recoverable writers (see RecoverableWriter). Calls that have
// only a token (Recover, RecoverForCommit, CleanupRecoverableState, and the
// streams and committers they return) have the zero Path, which a rule's Path
// pattern matches only when it is "".
const (
	RecoverableOpen     = vfs.OpRecoverableOpen
	Recover             = vfs.OpRecover
	RecoverForCommit    = vfs.OpRecoverForCommit
	CleanupRecoverable  = vfs.OpCleanupRecoverable
	Persist             = vfs.OpPersist
	CloseForCommit      = vfs.OpCloseForCommit
	Commit              = vfs.OpCommit
	CommitAfterRecovery = vfs.OpCommitAfterRecover
)

// RecoverableWriter is the writer below with the rules applied to its calls
// that take a context (the operations above): a fault fails the call before
// it reaches the writer below.
func (f *FS) RecoverableWriter() (vfs.RecoverableWriter, error) {
	return layer.WrapRecoverable(f.Inner, layer.RecoverableHooks{
		Call: func(ctx context.Context, op string, p vfs.Path, call func(context.Context) error) error {
			if _, err := f.inject(ctx, Op(op), p); err != nil {
				return err
			}
			return call(ctx)
		},
	})
}

package sub

import (
	"fmt"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// Kinds of the view's tokens.
const (
	resumeKind = "sub-resume/1"
	commitKind = "sub-commit/1"
)

// RecoverableWriter is the writer below, confined to the subtree: Open maps
// its path as every method does, and the tokens are the tokens below sealed
// with the subtree's root, so a token of another subtree, or one made below
// the view, is refused with fs.ErrInvalid.
func (f *FS) RecoverableWriter() (vfs.RecoverableWriter, error) {
	owner := f.root.String()
	return layer.WrapRecoverable(f.Inner, layer.RecoverableHooks{
		Path: f.in,
		Seal: func(resume bool, below []byte) []byte { return vfs.SealToken(kind(resume), owner, below) },
		Unseal: func(op string, resume bool, tok []byte) ([]byte, error) {
			below, err := vfs.OpenToken(kind(resume), owner, tok)
			if err != nil {
				return nil, vfs.NewPathError(op, f.top, fmt.Errorf("sub %s: %w", f.root.Redacted(), err))
			}
			return below, nil
		},
	})
}

func kind(resume bool) string {
	if resume {
		return resumeKind
	}
	return commitKind
}

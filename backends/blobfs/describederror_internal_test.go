package blobfs

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDescribedErrorSaysItOnce: a described message that already says what
// its sentinel means reads alone; one that does not is prefixed with the
// sentinel's text; errors.Is finds the sentinel either way.
func TestDescribedErrorSaysItOnce(t *testing.T) {
	for _, tc := range []struct {
		sentinel error
		msg      string
		want     string
	}{
		{fs.ErrNotExist, `bucket "b" does not exist`, `bucket "b" does not exist`},
		{fs.ErrPermission, `access denied to bucket "b": the credentials lack the permission`, `access denied to bucket "b": the credentials lack the permission`},
		{fs.ErrPermission, `Google refused the credentials for bucket "b"`, `permission denied: Google refused the credentials for bucket "b"`},
		{fs.ErrNotExist, `Azure answered HTTP 404 (BlobNotFound)`, `file does not exist: Azure answered HTTP 404 (BlobNotFound)`},
		{fs.ErrExist, `access denied to bucket "b"`, `file already exists: access denied to bucket "b"`},
	} {
		err := &describedError{err: errors.New(tc.msg), sentinel: tc.sentinel}
		assert.Equal(t, tc.want, err.Error())
		assert.ErrorIs(t, err, tc.sentinel)
	}
}

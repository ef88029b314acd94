package checkpointstorage_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

// TestHandlesAndErrorsHideUserInfo: what checkpointstorage prints of a path
// (handle descriptions, errors) never shows the user info of its authority.
func TestHandlesAndErrorsHideUserInfo(t *testing.T) {
	p := vfs.MustPath("memory://u:hunter2@h/job/chk-1/_metadata")
	abs := &cs.FileStateHandle{FilePath: p, Size: 1}
	rel := cs.NewRelativeFileStateHandle(p, "_metadata", 1)
	for _, s := range []string{abs.String(), rel.String(), fmt.Sprint(abs), fmt.Sprintf("%v", rel)} {
		assert.NotContains(t, s, "hunter2")
		assert.Contains(t, s, "memory://xxxxx@h/job/chk-1/_metadata")
	}
	_, _, err := cs.LoadCheckpoint(context.Background(), "memory://u:hunter2@h/nothing/here")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hunter2")
	_, err = cs.DiscardCheckpoint(context.Background(), vfs.MustPath("memory://u:hunter2@h/"))
	require.Error(t, err, "the root is not a checkpoint directory")
	assert.NotContains(t, err.Error(), "hunter2")
}

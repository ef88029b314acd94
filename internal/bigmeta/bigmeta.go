// Package bigmeta writes large checkpoint metadata for tests that measure what
// reading and printing it costs.
package bigmeta

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
)

// Write writes, in a new temporary directory, a checkpoint directory chk-1
// whose _metadata (vfskit's format) has one operator with the given number of
// subtasks, each with a relative state file and 8 bytes of inline state, as
// the storage writes them (about 92 bytes per subtask). It returns the
// directory and the size of the _metadata file.
func Write(t testing.TB, subtasks int) (dir string, size int64) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "chk-1")
	require.NoError(t, os.Mkdir(dir, 0o755))
	op := metadata.Operator{UID: "op", Parallelism: subtasks, MaxParallelism: subtasks}
	for i := range subtasks {
		op.Subtasks = append(op.Subtasks, metadata.Subtask{Index: i, Handles: []metadata.Handle{
			&metadata.RelativeFileStateHandle{RelativePath: fmt.Sprintf("%036d", i), Size: 1 << 20},
			&metadata.ByteStreamStateHandle{Name: fmt.Sprintf("%036d", i), Data: make([]byte, 8)},
		}})
	}
	b, err := (&metadata.Metadata{CheckpointID: 1, Operators: []metadata.Operator{op}}).MarshalBinary()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "_metadata"), b, 0o644))
	return dir, int64(len(b))
}

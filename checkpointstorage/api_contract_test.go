package checkpointstorage_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

// The signatures DESIGN.md lists, checked at compile time.
var (
	_ func() cs.JobID                                                                                                    = cs.NewJobID
	_ func(string) (cs.JobID, error)                                                                                     = cs.ParseJobID
	_ func(context.Context, cs.JobID, vfs.Path, vfs.Path, int, ...cs.Option) (*cs.MemoryBackendCheckpointStorage, error) = cs.NewMemoryBackendCheckpointStorage
	_ func(context.Context, cs.JobID, vfs.Path, vfs.Path, int, int, ...cs.Option) (*cs.FsCheckpointStorage, error)       = cs.NewFsCheckpointStorage
	_ func() cs.LocationReference                                                                                        = cs.DefaultLocationReference
	_ func([]byte) (cs.LocationReference, error)                                                                         = cs.NewLocationReference
	_ func(vfs.Path) cs.LocationReference                                                                                = cs.EncodePathAsReference
	_ func(cs.LocationReference) (vfs.Path, error)                                                                       = cs.DecodePathFromReference

	_ cs.CheckpointStorage                  = (*cs.FsCheckpointStorage)(nil)
	_ cs.CheckpointStorage                  = (*cs.MemoryBackendCheckpointStorage)(nil)
	_ cs.CheckpointStorageLocation          = (*cs.FsCheckpointStorageLocation)(nil)
	_ cs.CheckpointStorageLocation          = (*cs.PersistentMetadataCheckpointStorageLocation)(nil)
	_ cs.CheckpointStorageLocation          = (*cs.NonPersistentMetadataCheckpointStorageLocation)(nil)
	_ cs.CheckpointStreamFactory            = (*cs.FsCheckpointStreamFactory)(nil)
	_ cs.CheckpointStreamFactory            = (*cs.MemCheckpointStreamFactory)(nil)
	_ cs.CheckpointStateOutputStream        = (*cs.FsCheckpointStateOutputStream)(nil)
	_ cs.CheckpointStateOutputStream        = (*cs.MemoryCheckpointOutputStream)(nil)
	_ cs.CheckpointMetadataOutputStream     = (*cs.FsCheckpointMetadataOutputStream)(nil)
	_ cs.CheckpointMetadataOutputStream     = (*cs.MemoryMetadataOutputStream)(nil)
	_ cs.CompletedCheckpointStorageLocation = (*cs.FsCompletedCheckpointStorageLocation)(nil)
	_ cs.CompletedCheckpointStorageLocation = (*cs.NonPersistentCompletedCheckpointStorageLocation)(nil)
	_ cs.StreamStateHandle                  = (*cs.ByteStreamStateHandle)(nil)
	_ cs.StreamStateHandle                  = (*cs.FileStateHandle)(nil)
	_ cs.StreamStateHandle                  = (*cs.RelativeFileStateHandle)(nil)
)

func TestConstantsCarryFlinkValues(t *testing.T) {
	require.Equal(t, "chk-", cs.CheckpointDirPrefix)
	require.Equal(t, "shared", cs.SharedStateDir)
	require.Equal(t, "taskowned", cs.TaskOwnedStateDir)
	require.Equal(t, "_metadata", cs.MetadataFileName)
	require.Equal(t, 5*1024*1024, cs.DefaultMaxStateSize)
	require.Equal(t, 1024*1024, cs.MaxFileStateThreshold)
	require.Equal(t, cs.StateScope(0), cs.Exclusive)
}

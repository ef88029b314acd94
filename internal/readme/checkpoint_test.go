package readme_test

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// checkpointAndRestore is the README's checkpoint storage snippet.
func checkpointAndRestore(ctx context.Context, base vfs.Path, state []byte) ([]byte, error) {
	job := checkpointstorage.NewJobID() // base: s3://my-bucket/checkpoints, file:///var/ckpt, memory://test/ckpt
	storage, err := checkpointstorage.NewFsCheckpointStorage(ctx, job, base, vfs.Path{}, 1<<20, 4096)
	if err != nil {
		return nil, err
	}
	loc, err := storage.InitializeLocationForCheckpoint(ctx, 1) // <base>/<job>/chk-1/
	if err != nil {
		return nil, err
	}
	out, err := loc.CreateCheckpointStateOutputStream(ctx, checkpointstorage.Exclusive)
	if err != nil {
		return nil, err
	}
	if _, err := out.Write(state); err != nil { // ≤ 1 MiB: inline; more: a file
		out.Close() // discards
		return nil, err
	}
	handle, err := out.CloseAndGetHandle(ctx)
	if err != nil {
		return nil, err
	}
	completed, err := checkpointstorage.FinalizeCheckpoint(ctx, loc, &checkpointstorage.CheckpointMetadata{
		JobID: job, CheckpointID: 1,
		Operators: []checkpointstorage.OperatorState{{UID: "counter", Parallelism: 1, MaxParallelism: 128,
			Subtasks: []checkpointstorage.SubtaskState{{Index: 0, Handles: []metadata.Handle{handle}}}}},
	})
	if err != nil {
		return nil, err
	}
	fmt.Println(completed.ExternalPointer()) // s3://my-bucket/checkpoints/<job>/chk-1

	// after a crash:
	latest, err := checkpointstorage.LatestCompletedCheckpoint(ctx, storage.CheckpointsDirectory())
	if err != nil {
		return nil, err
	}
	md, _, err := checkpointstorage.LoadCheckpoint(ctx, latest.Dir.String())
	if err != nil {
		return nil, err
	}
	in, err := md.Handles()[0].(checkpointstorage.StreamStateHandle).OpenInputStream(ctx)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return io.ReadAll(in)
}

func TestCheckpointAndRestore(t *testing.T) {
	_, root := memfs.NewTest(t)
	got, err := checkpointAndRestore(t.Context(), root.Join("checkpoints"), []byte("count=42"))
	require.NoError(t, err)
	assert.Equal(t, "count=42", string(got))
}

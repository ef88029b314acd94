package checkpointstorage_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"strings"

	_ "github.com/vfskit/vfskit/backends/memfs" // registers memory://
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// Example takes a checkpoint with FsCheckpointStorage and restores it. Only the
// URI chooses the backend: "file:///var/checkpoints" or "s3://bucket/checkpoints"
// work the same way.
func Example() {
	ctx := context.Background()
	job, _ := cs.ParseJobID("fd72014d4c864993a2e5a9287b4a9c5d")
	base := vfs.MustPath("memory://example/checkpoints")

	// State up to 16 bytes stays inline in the metadata; larger state goes to files.
	storage, err := cs.NewFsCheckpointStorage(ctx, job, base, vfs.Path{}, 16, 4096)
	if err != nil {
		log.Fatal(err)
	}

	// Checkpoint 1: the coordinator creates the location...
	loc, err := storage.InitializeLocationForCheckpoint(ctx, 1)
	if err != nil {
		log.Fatal(err)
	}
	// ...each task writes its state and keeps the handle...
	var handles []metadata.Handle
	for _, state := range []string{"offset=42", strings.Repeat("window contents ", 10)} {
		out, err := loc.CreateCheckpointStateOutputStream(ctx, cs.Exclusive)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := io.WriteString(out, state); err != nil {
			log.Fatal(err)
		}
		h, err := out.CloseAndGetHandle(ctx)
		if err != nil {
			log.Fatal(err)
		}
		handles = append(handles, h)
	}
	// ...and the coordinator publishes the metadata.
	completed, err := cs.FinalizeCheckpoint(ctx, loc, &cs.CheckpointMetadata{
		JobID:        job,
		CheckpointID: 1,
		Operators: []cs.OperatorState{{
			UID: "source", Parallelism: 1, MaxParallelism: 128,
			Subtasks: []cs.SubtaskState{{Index: 0, Handles: handles}},
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("checkpoint:", completed.ExternalPointer())

	// Restore: find the latest completed checkpoint and load it.
	latest, err := cs.LatestCompletedCheckpoint(ctx, storage.CheckpointsDirectory())
	if err != nil {
		log.Fatal(err)
	}
	md, _, err := cs.LoadCheckpoint(ctx, latest.Dir.String())
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range md.Handles() {
		// The handles of a checkpoint this package wrote are live: they open
		// their state.
		in, err := h.(cs.StreamStateHandle).OpenInputStream(ctx)
		if err != nil {
			log.Fatal(err)
		}
		b, _ := io.ReadAll(in)
		in.Close()
		fmt.Printf("%s state, %d bytes: %.20s\n", cs.KindOf(h), h.StateSize(), b)
	}
	// Output:
	// checkpoint: memory://example/checkpoints/fd72014d4c864993a2e5a9287b4a9c5d/chk-1
	// inline state, 9 bytes: offset=42
	// relative state, 160 bytes: window contents wind
}

// ExampleRetainCheckpoints keeps the newest two checkpoints of a job and
// discards the older ones with their exclusive state.
func ExampleRetainCheckpoints() {
	ctx := context.Background()
	job := cs.NewJobID()
	storage, err := cs.NewFsCheckpointStorage(ctx, job, vfs.MustPath("memory://retain/checkpoints"), vfs.Path{}, 0, 0)
	if err != nil {
		log.Fatal(err)
	}
	for id := int64(1); id <= 4; id++ {
		loc, err := storage.InitializeLocationForCheckpoint(ctx, id)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := cs.FinalizeCheckpoint(ctx, loc, &cs.CheckpointMetadata{JobID: job, CheckpointID: id}); err != nil {
			log.Fatal(err)
		}
	}
	discarded, err := cs.RetainCheckpoints(ctx, storage.CheckpointsDirectory(), 2)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range discarded {
		fmt.Println("discarded", c.CheckpointID)
	}
	left, _ := cs.ListCompletedCheckpoints(ctx, storage.CheckpointsDirectory())
	for _, c := range left {
		fmt.Println("kept", c.Dir.Name())
	}
	// Output:
	// discarded 1
	// discarded 2
	// kept chk-3
	// kept chk-4
}

// ExampleMemoryBackendCheckpointStorage keeps state inline and, without a
// checkpoints directory, the metadata in memory.
func ExampleMemoryBackendCheckpointStorage() {
	ctx := context.Background()
	storage, err := cs.NewMemoryBackendCheckpointStorage(ctx, cs.NewJobID(), vfs.Path{}, vfs.Path{}, 8)
	if err != nil {
		log.Fatal(err)
	}
	loc, _ := storage.InitializeLocationForCheckpoint(ctx, 1)
	out, _ := loc.CreateCheckpointStateOutputStream(ctx, cs.Exclusive)
	io.WriteString(out, "too large")
	_, err = out.CloseAndGetHandle(ctx)
	fmt.Println(err)
	// Output:
	// Size of the state is larger than the maximum permitted memory-backed state. Size=9, maxSize=8. Consider using a different checkpoint storage, like the FileSystemCheckpointStorage.: state too large
}

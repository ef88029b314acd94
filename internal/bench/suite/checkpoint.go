package suite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/bench"
	"github.com/vfskit/vfskit/vfs"
)

// fileStateThreshold is Flink's default state.storage.fs.memory-threshold
// (20 KiB): the 1 MiB states all go to files.
const fileStateThreshold = 20 << 10

// checkpointer writes one checkpoint per call through FsCheckpointStorage:
// c.States states of c.StateSize bytes, each its own stream, then the metadata.
type checkpointer struct {
	storage *cs.FsCheckpointStorage
	state   []byte
	states  int
	id      int64
	// metaSize is the size of the last metadata written.
	metaSize int
}

func newCheckpointer(ctx context.Context, c *Config, base vfs.Path, reg *vfs.Registry) (*checkpointer, error) {
	s, err := cs.NewFsCheckpointStorage(ctx, cs.NewJobID(), base, vfs.Path{}, fileStateThreshold,
		cs.DefaultWriteBufferSize, cs.WithRegistry(reg))
	if err != nil {
		return nil, err
	}
	return &checkpointer{storage: s, state: pattern(c.StateSize), states: c.States}, nil
}

func (k *checkpointer) checkpoint(ctx context.Context) error {
	k.id++
	loc, err := k.storage.InitializeLocationForCheckpoint(ctx, k.id)
	if err != nil {
		return err
	}
	op := cs.OperatorState{UID: "bench", Parallelism: k.states, MaxParallelism: 128}
	for i := range k.states {
		out, err := loc.CreateCheckpointStateOutputStream(ctx, cs.Exclusive)
		if err != nil {
			return err
		}
		if _, err := out.Write(k.state); err != nil {
			_ = out.Close()
			return err
		}
		h, err := out.CloseAndGetHandle(ctx)
		if err != nil {
			return err
		}
		op.Subtasks = append(op.Subtasks, cs.SubtaskState{Index: i, Handles: []metadata.Handle{h}})
	}
	m := &cs.CheckpointMetadata{JobID: k.storage.JobID(), CheckpointID: k.id, Operators: []cs.OperatorState{op}}
	data, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	k.metaSize = len(data)
	_, err = cs.FinalizeCheckpoint(ctx, loc, m)
	return err
}

// checkpointLocal checkpoints through FsCheckpointStorage on file:// against
// writing the same bytes with os calls (each file written, fsynced, closed;
// the directory fsynced).
func checkpointLocal(ctx context.Context, c *Config) ([]bench.Result, error) {
	dir, err := os.MkdirTemp(c.Dir, "vfsbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	k, err := newCheckpointer(ctx, c, vfs.MustPath(filepath.Join(dir, "ckpt")), vfs.DefaultRegistry())
	if err != nil {
		return nil, err
	}
	if err := k.checkpoint(ctx); err != nil { // warm-up: learns the metadata size
		return nil, err
	}
	raws := 0
	s, err := bench.Interleave(c.Rounds, func() error { return k.checkpoint(ctx) }, func() error {
		raws++
		d := filepath.Join(dir, "raw", strconv.Itoa(raws))
		if err := os.MkdirAll(d, 0o777); err != nil {
			return err
		}
		for i := range k.states + 1 {
			data := k.state
			if i == k.states {
				data = data[:min(k.metaSize, len(data))]
			}
			if err := writeSynced(filepath.Join(d, strconv.Itoa(i)), data); err != nil {
				return err
			}
		}
		return syncDir(d)
	})
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("checkpoint of %d × %d KiB states + metadata, file://", c.States, c.StateSize/kib)
	return []bench.Result{speed(name, s, float64(c.States)*float64(c.StateSize)/mib, "MiB/s", 0.9)}, nil
}

func writeSynced(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	return writeClose(f, data, len(data), true)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// memoryCheckpoint writes c.MemStates states of c.MemStateSize bytes through
// MemoryBackendCheckpointStorage and reports time and allocations per state.
func memoryCheckpoint(ctx context.Context, c *Config) ([]bench.Result, error) {
	s, err := cs.NewMemoryBackendCheckpointStorage(ctx, cs.NewJobID(), vfs.Path{}, vfs.Path{}, 0)
	if err != nil {
		return nil, err
	}
	state := pattern(c.MemStateSize)
	var times, allocs []float64
	for round := range c.Rounds {
		loc, err := s.InitializeLocationForCheckpoint(ctx, int64(round+1))
		if err != nil {
			return nil, err
		}
		handles := make([]cs.StreamStateHandle, 0, c.MemStates)
		elapsed, mallocs, err := counted(func() error {
			for range c.MemStates {
				out, err := loc.CreateCheckpointStateOutputStream(ctx, cs.Exclusive)
				if err != nil {
					return err
				}
				if _, err := out.Write(state); err != nil {
					return err
				}
				h, err := out.CloseAndGetHandle(ctx)
				if err != nil {
					return err
				}
				handles = append(handles, h)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(handles) != c.MemStates || handles[0].StateSize() != int64(len(state)) {
			return nil, fmt.Errorf("%d handles of %d bytes, want %d of %d", len(handles), handles[0].StateSize(), c.MemStates, len(state))
		}
		times = append(times, float64(elapsed.Nanoseconds())/float64(c.MemStates))
		allocs = append(allocs, float64(mallocs)/float64(c.MemStates))
	}
	return []bench.Result{{
		Name: fmt.Sprintf("MemoryBackendCheckpointStorage, %d states of %d KiB", c.MemStates, c.MemStateSize/kib),
		Ours: bench.Median(times), Unit: "ns/state", Rounds: c.Rounds,
		Target: "reported", Met: true,
		Note: fmt.Sprintf("%.1f allocs/state", bench.Median(allocs)),
	}}, nil
}

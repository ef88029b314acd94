package demo

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

// batchSize is the number of records the source hands to a subtask at once.
const batchSize = 512

// barrier is Flink's checkpoint barrier: when a subtask receives it, its state
// reflects exactly the records before the barrier's offset, and it snapshots.
type barrier struct {
	checkpointID int64
	// ref is the location reference the coordinator sends; the subtask resolves
	// it to a stream factory with ResolveCheckpointStorageLocation, as Flink's
	// tasks do.
	ref checkpointstorage.LocationReference
	// final marks the savepoint at the end of the input: sinks close their
	// parts in progress for commit.
	final bool
}

// message is what flows from the source to a subtask: a batch of words or a
// barrier.
type message struct {
	words   []string
	barrier *barrier
}

// ack is a subtask's answer to a barrier.
type ack struct {
	subtask int
	handle  checkpointstorage.StreamStateHandle
	// sink is the state of the subtask's sink and commits the parts its
	// checkpoint commits; nil without a sink.
	sink    checkpointstorage.StreamStateHandle
	commits []vfs.CommitRecoverable
	err     error
}

// subtask is one parallel instance of the counting operator with its keyed
// state.
type subtask struct {
	index  int
	counts Counts
	sink   *sink // nil: the job writes no output
}

// pipeline is the running job graph: source → keyBy(word) → N counting subtasks.
type pipeline struct {
	storage  checkpointstorage.CheckpointStorage // nil: no checkpoints
	subtasks []*subtask
	in       []chan message
	acks     chan ack
	pending  [][]string // per-subtask batch being filled
	wg       sync.WaitGroup
	cancel   context.CancelFunc
}

// startPipeline starts one goroutine per subtask with the given initial state
// and sinks (nil: no output).
func startPipeline(ctx context.Context, storage checkpointstorage.CheckpointStorage, states []Counts, sinks []*sink) *pipeline {
	ctx, cancel := context.WithCancel(ctx)
	p := &pipeline{
		storage: storage,
		acks:    make(chan ack, len(states)),
		pending: make([][]string, len(states)),
		cancel:  cancel,
	}
	for i, st := range states {
		if st == nil {
			st = Counts{}
		}
		t := &subtask{index: i, counts: st}
		if sinks != nil {
			t.sink = sinks[i]
		}
		ch := make(chan message, 8)
		p.subtasks = append(p.subtasks, t)
		p.in = append(p.in, ch)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			t.run(ctx, storage, ch, p.acks)
		}()
	}
	return p
}

// run processes messages until the input closes.
func (t *subtask) run(ctx context.Context, storage checkpointstorage.CheckpointStorage, in <-chan message, acks chan<- ack) {
	for m := range in {
		if m.barrier == nil {
			for _, w := range m.words {
				t.counts[w]++
				if t.sink != nil {
					t.sink.write(ctx, w, t.counts[w])
				}
			}
			continue
		}
		a := ack{subtask: t.index}
		a.handle, a.err = t.snapshot(ctx, storage, m.barrier)
		if a.err == nil && t.sink != nil {
			a.sink, a.commits, a.err = t.snapshotSink(ctx, storage, m.barrier)
		}
		acks <- a
	}
}

// snapshot writes the subtask's keyed state for a checkpoint and returns its
// handle.
func (t *subtask) snapshot(ctx context.Context, storage checkpointstorage.CheckpointStorage, b *barrier) (checkpointstorage.StreamStateHandle, error) {
	factory, err := storage.ResolveCheckpointStorageLocation(ctx, b.checkpointID, b.ref)
	if err != nil {
		return nil, err
	}
	return writeState(ctx, factory, t.counts.WriteTo)
}

// snapshotSink writes the state of the subtask's sink for a checkpoint and
// returns its handle and the parts the checkpoint commits.
func (t *subtask) snapshotSink(ctx context.Context, storage checkpointstorage.CheckpointStorage, b *barrier) (checkpointstorage.StreamStateHandle, []vfs.CommitRecoverable, error) {
	st, err := t.sink.snapshot(ctx, b.final)
	if err != nil {
		return nil, nil, err
	}
	factory, err := storage.ResolveCheckpointStorageLocation(ctx, b.checkpointID, b.ref)
	if err != nil {
		return nil, nil, err
	}
	h, err := writeState(ctx, factory, func(w io.Writer) (int64, error) {
		n, err := w.Write(st.marshal())
		return int64(n), err
	})
	return h, st.pending, err
}

// writeState writes one piece of state through a fresh exclusive stream and
// returns its handle; on error the stream is discarded.
func writeState(ctx context.Context, factory checkpointstorage.CheckpointStreamFactory, write func(io.Writer) (int64, error)) (checkpointstorage.StreamStateHandle, error) {
	out, err := factory.CreateCheckpointStateOutputStream(ctx, checkpointstorage.Exclusive)
	if err != nil {
		return nil, err
	}
	if _, err := write(out); err != nil {
		_ = out.Close()
		return nil, err
	}
	h, err := out.CloseAndGetHandle(ctx)
	if err != nil {
		return nil, err
	}
	if h == nil {
		return nil, fmt.Errorf("demo: state stream produced no handle")
	}
	return h, nil
}

// emit routes one record to its subtask, flushing full batches.
func (p *pipeline) emit(ctx context.Context, word string) error {
	i := partition(word, len(p.in))
	p.pending[i] = append(p.pending[i], word)
	if len(p.pending[i]) >= batchSize {
		return p.send(ctx, i, message{words: p.pending[i]})
	}
	return nil
}

// flush hands every partly filled batch to its subtask.
func (p *pipeline) flush(ctx context.Context) error {
	for i, b := range p.pending {
		if len(b) > 0 {
			if err := p.send(ctx, i, message{words: b}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *pipeline) send(ctx context.Context, i int, m message) error {
	if m.words != nil {
		p.pending[i] = make([]string, 0, batchSize)
	}
	select {
	case p.in[i] <- m:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// snapshotSubtasks sends a barrier to every subtask and collects their acks,
// indexed by subtask.
func (p *pipeline) snapshotSubtasks(ctx context.Context, b barrier) ([]ack, error) {
	if err := p.flush(ctx); err != nil {
		return nil, err
	}
	for i := range p.in {
		if err := p.send(ctx, i, message{barrier: &b}); err != nil {
			return nil, err
		}
	}
	acks := make([]ack, len(p.in))
	var firstErr error
	for range p.in {
		select {
		case a := <-p.acks:
			if a.err != nil && firstErr == nil {
				firstErr = fmt.Errorf("demo: subtask %d of checkpoint %d: %w", a.subtask, b.checkpointID, a.err)
			}
			acks[a.subtask] = a
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return acks, firstErr
}

// stop ends the pipeline: the remaining records are processed and the final
// state of every subtask is returned.
func (p *pipeline) stop(ctx context.Context) ([]Counts, error) {
	err := p.flush(ctx)
	for _, ch := range p.in {
		close(ch)
	}
	p.wg.Wait()
	p.cancel()
	states := make([]Counts, len(p.subtasks))
	for i, t := range p.subtasks {
		states[i] = t.counts
	}
	return states, err
}

// kill simulates a crash: the subtasks stop at once and all their in-memory
// state, including records not yet processed, is dropped.
func (p *pipeline) kill() {
	p.cancel()
	for _, ch := range p.in {
		close(ch)
	}
	p.wg.Wait()
	p.subtasks, p.pending, p.in = nil, nil, nil
}

// merge adds up the per-subtask counts (keys are disjoint: each word lives in
// one subtask).
func merge(states []Counts) Counts {
	all := Counts{}
	for _, st := range states {
		for k, v := range st {
			all[k] += v
		}
	}
	return all
}

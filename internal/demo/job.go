package demo

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// Operator ids recorded in the metadata.
const (
	// SourceOperatorID is the source; its state is the offset of the next record.
	SourceOperatorID = "word-source"
	// CountOperatorID is the keyed counting operator; its state is Counts.
	CountOperatorID = "word-count"
)

// job is one demo run in progress.
type job struct {
	cfg     Config
	stream  *Stream
	observe Observer
	report  *Report
	out     *output // nil: the job writes no output
}

// Run runs the demo job described by cfg, reporting progress to observe (which
// may be nil). It returns the report; a run whose result differs from the
// failure-free run is not an error — check Report.OK. Errors are invalid
// configurations (fs.ErrInvalid) and failures of the storage.
func Run(ctx context.Context, cfg Config, observe Observer) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.JobID.IsZero() {
		cfg.JobID = checkpointstorage.NewJobID()
	}
	if observe == nil {
		observe = func(Event) {}
	}
	start := time.Now()
	j := &job{
		cfg:     cfg,
		stream:  NewStream(cfg.Seed, cfg.Vocabulary),
		observe: observe,
		report: &Report{
			JobID:         cfg.JobID,
			Storage:       cfg.Storage,
			CheckpointDir: cfg.CheckpointDir,
			JobDir:        cfg.CheckpointDir.Join(cfg.JobID.String()),
			Records:       cfg.Records,
			Parallelism:   cfg.Parallelism,
		},
	}
	expected, err := j.reference(ctx)
	if err != nil {
		return nil, err
	}
	counts, err := j.run(ctx)
	if err != nil {
		return nil, err
	}
	j.report.Counts, j.report.Expected = counts, expected
	j.report.Mismatch = Diff(counts, expected)
	if err := j.verifyOutput(ctx, expected); err != nil {
		return nil, err
	}
	j.report.Elapsed = time.Since(start)
	return j.report, nil
}

// reference runs the same job without failure and without checkpoints and
// returns its result.
func (j *job) reference(ctx context.Context) (Counts, error) {
	j.observe(Event{Kind: EventPhase, Phase: "reference run: the same job without failure and without checkpoints"})
	p := startPipeline(ctx, nil, make([]Counts, j.cfg.Parallelism), nil)
	for i := int64(0); i < j.cfg.Records; i++ {
		if err := p.emit(ctx, j.stream.At(i)); err != nil {
			p.kill()
			return nil, err
		}
	}
	states, err := p.stop(ctx)
	if err != nil {
		return nil, err
	}
	return merge(states), nil
}

// run is the real job: checkpoints, the crash, recovery, replay, savepoint.
func (j *job) run(ctx context.Context) (Counts, error) {
	cfg := j.cfg
	j.observe(Event{Kind: EventPhase, Phase: fmt.Sprintf("job %s: %d records, %d subtasks, a checkpoint every %d records to %s (%s storage)",
		cfg.JobID, cfg.Records, cfg.Parallelism, cfg.CheckpointInterval, j.report.JobDir, cfg.Storage)})
	storage, err := j.newStorage(ctx)
	if err != nil {
		return nil, err
	}
	if j.out, err = j.newOutput(ctx); err != nil {
		return nil, err
	}
	p := startPipeline(ctx, storage, make([]Counts, cfg.Parallelism), j.out.sinks(cfg.Parallelism))
	nextID := int64(1)
	end := cfg.Records
	if cfg.CrashAt > 0 {
		end = cfg.CrashAt
	}
	if nextID, err = j.feed(ctx, p, storage, 0, end, nextID); err != nil {
		p.kill()
		return nil, err
	}
	if cfg.CrashAt > 0 {
		// Every subtask's state, every record in flight and the storage object
		// are gone; recovery starts from the checkpoint directory alone.
		p.kill()
		j.report.Crashed, j.report.CrashOffset = true, cfg.CrashAt
		j.observe(Event{Kind: EventCrash, Offset: cfg.CrashAt, Total: cfg.Records})

		var offset int64
		p, storage, offset, nextID, err = j.recover(ctx)
		if err != nil {
			return nil, err
		}
		if nextID, err = j.feed(ctx, p, storage, offset, cfg.Records, nextID); err != nil {
			p.kill()
			return nil, err
		}
	}
	j.observe(Event{Kind: EventPhase, Phase: "taking the final savepoint"})
	sp, err := j.checkpoint(ctx, p, storage, nextID, cfg.Records, true)
	if err != nil {
		p.kill()
		return nil, err
	}
	j.report.Savepoint = sp
	j.observe(Event{Kind: EventSavepoint, Checkpoint: sp})
	states, err := p.stop(ctx)
	if err != nil {
		return nil, err
	}
	return merge(states), nil
}

// newStorage creates the checkpoint storage, as a (re)started job manager does.
func (j *job) newStorage(ctx context.Context) (checkpointstorage.CheckpointStorage, error) {
	cfg := j.cfg
	switch cfg.Storage {
	case FsStorage:
		threshold := cfg.FileStateThreshold
		if threshold == 0 {
			threshold = defaultFileStateThreshold
		}
		return checkpointstorage.NewFsCheckpointStorage(ctx, cfg.JobID, cfg.CheckpointDir, cfg.savepointDir(), threshold, checkpointstorage.DefaultWriteBufferSize, cfg.storageOptions()...)
	default:
		return checkpointstorage.NewMemoryBackendCheckpointStorage(ctx, cfg.JobID, cfg.CheckpointDir, cfg.savepointDir(), cfg.MaxStateSize, cfg.storageOptions()...)
	}
}

// feed reads records [from, to) into the pipeline, taking a checkpoint before
// every offset that is a multiple of the interval (except from itself, which a
// restored job has just checkpointed). It returns the next checkpoint id.
func (j *job) feed(ctx context.Context, p *pipeline, storage checkpointstorage.CheckpointStorage, from, to, nextID int64) (int64, error) {
	cfg := j.cfg
	start := time.Now()
	for i := from; i < to; i++ {
		if i > from && i%cfg.CheckpointInterval == 0 {
			stat, err := j.checkpoint(ctx, p, storage, nextID, i, false)
			if err != nil {
				return nextID, err
			}
			nextID++
			j.report.Checkpoints = append(j.report.Checkpoints, stat)
			j.observe(Event{Kind: EventCheckpoint, Checkpoint: stat, Offset: i, Total: cfg.Records})
		}
		if err := p.emit(ctx, j.stream.At(i)); err != nil {
			return nextID, err
		}
		if done := i + 1 - from; done%batchSize == 0 || i+1 == to {
			j.observe(Event{Kind: EventProgress, Offset: i + 1, Total: cfg.Records})
			if err := sleepUntil(ctx, start.Add(cfg.pace(done))); err != nil {
				return nextID, err
			}
		}
	}
	return nextID, nil
}

// checkpoint takes checkpoint (or savepoint) id covering records [0, offset):
// barriers to every subtask, the source's offset, then the metadata.
func (j *job) checkpoint(ctx context.Context, p *pipeline, storage checkpointstorage.CheckpointStorage, id, offset int64, savepoint bool) (stat CheckpointStat, err error) {
	started := time.Now()
	var loc checkpointstorage.CheckpointStorageLocation
	if savepoint {
		loc, err = storage.InitializeLocationForSavepoint(ctx, id, j.cfg.savepointDir().String())
	} else {
		loc, err = storage.InitializeLocationForCheckpoint(ctx, id)
	}
	if err != nil {
		return stat, err
	}
	var all []checkpointstorage.StreamStateHandle // to discard on failure
	var completed checkpointstorage.CompletedCheckpointStorageLocation
	defer func() {
		if err != nil && completed == nil {
			for _, h := range all {
				if h != nil {
					_ = h.DiscardState(ctx)
				}
			}
			_ = loc.DisposeOnFailure(ctx)
		}
	}()
	b := barrier{checkpointID: id, ref: loc.LocationReference(), final: savepoint}
	acks, err := p.snapshotSubtasks(ctx, b)
	var counts, sinks []checkpointstorage.StreamStateHandle
	var commits []vfs.CommitRecoverable
	for _, a := range acks {
		all = append(all, a.handle, a.sink)
		counts = append(counts, a.handle)
		if a.sink != nil {
			sinks = append(sinks, a.sink)
			commits = append(commits, a.commits...)
		}
	}
	if err != nil {
		return stat, err
	}
	factory, err := storage.ResolveCheckpointStorageLocation(ctx, id, b.ref)
	if err != nil {
		return stat, err
	}
	source, err := writeState(ctx, factory, offsetState(offset).WriteTo)
	if err != nil {
		return stat, err
	}
	all = append(all, source)

	md := &checkpointstorage.CheckpointMetadata{
		JobID:        j.cfg.JobID,
		CheckpointID: id,
		Timestamp:    started,
		IsSavepoint:  savepoint,
		Operators: []checkpointstorage.OperatorState{
			{UID: SourceOperatorID, Parallelism: 1, MaxParallelism: 1,
				Subtasks: []checkpointstorage.SubtaskState{{Index: 0, Handles: []metadata.Handle{source}}}},
			{UID: CountOperatorID, Parallelism: len(counts), MaxParallelism: MaxParallelism},
		},
	}
	for i, h := range counts {
		md.Operators[1].Subtasks = append(md.Operators[1].Subtasks, checkpointstorage.SubtaskState{Index: i, Handles: []metadata.Handle{h}})
	}
	if len(sinks) > 0 {
		op := checkpointstorage.OperatorState{UID: SinkOperatorID, Parallelism: len(sinks), MaxParallelism: MaxParallelism}
		for i, h := range sinks {
			op.Subtasks = append(op.Subtasks, checkpointstorage.SubtaskState{Index: i, Handles: []metadata.Handle{h}})
		}
		md.Operators = append(md.Operators, op)
	}
	completed, err = checkpointstorage.FinalizeCheckpoint(ctx, loc, md)
	if err != nil {
		return stat, err
	}
	// The checkpoint is complete: its parts are committed (Flink's
	// notifyCheckpointComplete). A crash before this point commits them at
	// recovery.
	if len(commits) > 0 {
		if err := commitAll(ctx, j.out.w, commits, false); err != nil {
			return stat, err
		}
		j.report.Output.Commits += len(commits)
	}
	stat = CheckpointStat{
		ID: id, Savepoint: savepoint, Offset: offset,
		Pointer:       completed.ExternalPointer(),
		StateBytes:    md.StateSize(),
		MetadataBytes: completed.MetadataHandle().StateSize(),
		Duration:      time.Since(started),
	}
	for _, h := range md.Handles() {
		switch checkpointstorage.KindOf(h) {
		case checkpointstorage.KindInline:
			stat.Inline++
		case checkpointstorage.KindFile:
			stat.Files++
			stat.FileBytes += h.StateSize()
		case checkpointstorage.KindRelativeFile:
			stat.Relative++
			stat.FileBytes += h.StateSize()
		}
	}
	return stat, nil
}

// recover restarts the job from nothing but the checkpoint directory: a new
// storage, the latest completed checkpoint found there and resolved through
// ResolveCheckpoint, every subtask's state and the source offset restored. It
// returns the new pipeline, its storage, the offset to replay from and the next
// checkpoint id.
func (j *job) recover(ctx context.Context) (*pipeline, checkpointstorage.CheckpointStorage, int64, int64, error) {
	cfg := j.cfg
	j.observe(Event{Kind: EventPhase, Phase: "recovering from the latest completed checkpoint"})
	started := time.Now()
	storage, err := j.newStorage(ctx)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	var pointer string
	latest, err := checkpointstorage.LatestCompletedCheckpoint(ctx, j.report.JobDir, cfg.storageOptions()...)
	switch {
	case err == nil:
		pointer = latest.Dir.String()
	case !errors.Is(err, fs.ErrNotExist):
		return nil, nil, 0, 0, err
	}
	states := make([]Counts, cfg.Parallelism)
	var sinkStates [][]byte
	var offset, nextID int64 = 0, 1
	var restored CheckpointStat
	if pointer != "" {
		completed, err := storage.ResolveCheckpoint(ctx, pointer)
		if err != nil {
			return nil, nil, 0, 0, err
		}
		md, err := checkpointstorage.ReadMetadata(ctx, completed, cfg.storageOptions()...)
		if err != nil {
			return nil, nil, 0, 0, err
		}
		restoredStates, restoredSinks, restoredOffset, err := restoreState(ctx, md, cfg.Parallelism)
		if err != nil {
			return nil, nil, 0, 0, fmt.Errorf("demo: restoring checkpoint %s: %w", pointer, err)
		}
		offset, nextID = restoredOffset, md.CheckpointID+1
		if !cfg.SkipRestore {
			states = restoredStates
		}
		sinkStates = restoredSinks
		restored = CheckpointStat{ID: md.CheckpointID, Offset: offset, Pointer: completed.ExternalPointer(), StateBytes: md.StateSize()}
		j.report.RestoredFrom, j.report.RestoredID = restored.Pointer, md.CheckpointID
	}
	sinks, err := j.out.restore(ctx, sinkStates, cfg.Parallelism)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	p := startPipeline(ctx, storage, states, sinks)
	j.report.RestoredOffset = offset
	j.report.RestoreTime = time.Since(started)
	j.observe(Event{Kind: EventRestore, Checkpoint: restored, Offset: offset, Total: cfg.Records, Duration: j.report.RestoreTime})
	return p, storage, offset, nextID, nil
}

// restoreState reads the source offset and the counting state from md and
// redistributes the keys over parallelism subtasks (so a job may restore with
// another parallelism, as Flink rescales through key groups).
func restoreState(ctx context.Context, md *checkpointstorage.CheckpointMetadata, parallelism int) ([]Counts, [][]byte, int64, error) {
	states := make([]Counts, parallelism)
	var sinks [][]byte // by subtask
	for i := range states {
		states[i] = Counts{}
	}
	var offset int64 = -1
	for _, op := range md.Operators {
		for _, st := range op.Subtasks {
			for _, h := range st.Handles {
				switch op.UID {
				case SourceOperatorID:
					o, err := readHandle(ctx, h, readOffset)
					if err != nil {
						return nil, nil, 0, fmt.Errorf("%s subtask %d: %w", op.UID, st.Index, err)
					}
					offset = int64(o)
				case CountOperatorID:
					c, err := readHandle(ctx, h, ReadCounts)
					if err != nil {
						return nil, nil, 0, fmt.Errorf("%s subtask %d: %w", op.UID, st.Index, err)
					}
					for k, v := range c {
						states[partition(k, parallelism)][k] += v
					}
				case SinkOperatorID:
					b, err := readHandle(ctx, h, io.ReadAll)
					if err != nil {
						return nil, nil, 0, fmt.Errorf("%s subtask %d: %w", op.UID, st.Index, err)
					}
					if st.Index < 0 || st.Index >= MaxParallelism {
						return nil, nil, 0, fmt.Errorf("%s subtask %d: index out of range", op.UID, st.Index)
					}
					for len(sinks) <= st.Index {
						sinks = append(sinks, nil)
					}
					sinks[st.Index] = b
				default:
					return nil, nil, 0, fmt.Errorf("unknown operator %q in checkpoint %d", op.UID, md.CheckpointID)
				}
			}
		}
	}
	if offset < 0 {
		return nil, nil, 0, fmt.Errorf("checkpoint %d has no state for operator %q", md.CheckpointID, SourceOperatorID)
	}
	return states, sinks, offset, nil
}

// readHandle opens a state handle and decodes it with read.
func readHandle[T any](ctx context.Context, h metadata.Handle, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	sh, ok := h.(checkpointstorage.StreamStateHandle)
	if !ok {
		return zero, fmt.Errorf("state handle %s cannot be opened", metadata.KindName(h))
	}
	in, err := sh.OpenInputStream(ctx)
	if err != nil {
		return zero, err
	}
	defer in.Close()
	return read(in)
}

// offsetState is the source's state: the offset of the next record to read.
type offsetState int64

// WriteTo writes the offset as 8 big-endian bytes.
func (o offsetState) WriteTo(w io.Writer) (int64, error) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(o))
	n, err := w.Write(b[:])
	return int64(n), err
}

func readOffset(r io.Reader) (offsetState, error) {
	var b [8]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, fmt.Errorf("source state: %w", noEOF(err))
	}
	switch _, err := io.ReadFull(r, make([]byte, 1)); {
	case err == nil:
		return 0, errors.New("source state: trailing bytes after the offset")
	case err != io.EOF: // a failed read is not trailing bytes
		return 0, fmt.Errorf("source state: after the offset: %w", err)
	}
	o := int64(binary.BigEndian.Uint64(b[:]))
	if o < 0 {
		return 0, fmt.Errorf("source state: negative offset %d", o)
	}
	return offsetState(o), nil
}

// sleepUntil waits until t (returns at once when t has passed) or ctx ends.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

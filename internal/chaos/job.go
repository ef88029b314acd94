package chaos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// Job is a checkpointing job whose every byte is a function of its seed, so
// that what it wrote can be checked byte for byte by anyone who knows the seed
// (another process included). Cycle c of the job:
//
//  1. starts checkpoint 2c+1, writes a state stream into it and gives it up
//     (DisposeOnFailure), as a declined checkpoint;
//  2. writes checkpoint 2c+2: Streams state streams (small ones stay inline,
//     every BigEvery-th checkpoint has one of BigSize bytes) and
//     FinalizeCheckpoint; every CraftEvery-th one also names the canary files,
//     which lie outside the job's directory, as exclusive state (a crafted or
//     foreign _metadata);
//  3. keeps the newest Retain checkpoints (RetainCheckpoints);
//  4. every DisposeEvery-th cycle disposes of the oldest completed checkpoint
//     (DisposeStorageLocation) when there are two or more.
//
// The zero values of the counts get defaults (see Defaults).
type Job struct {
	// Base is the checkpoints base directory; the job writes under
	// Base/<job id> and puts its canary files beside it.
	Base vfs.Path `json:"-"`
	// Seed makes the job id and every state.
	Seed uint64
	// Registry gives the file systems the job writes through (faulted ones).
	Registry *vfs.Registry `json:"-"`

	Streams      int // state streams per checkpoint
	MaxState     int // largest ordinary state stream, in bytes
	BigEvery     int // every BigEvery-th checkpoint has a big stream; 0: never
	BigSize      int // size of the big stream
	CraftEvery   int // every CraftEvery-th checkpoint names the canary files
	Retain       int // checkpoints kept by RetainCheckpoints
	DisposeEvery int // a completed checkpoint is disposed of every DisposeEvery-th cycle
	Threshold    int // state smaller than this stays inline in _metadata
}

// Defaults fills the zero counts of j.
func (j *Job) Defaults() {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&j.Streams, 4)
	def(&j.MaxState, 48<<10)
	def(&j.CraftEvery, 7)
	def(&j.Retain, 3)
	def(&j.DisposeEvery, 4)
	def(&j.Threshold, 1024)
}

// ID is the job's id, derived from the seed.
func (j *Job) ID() cs.JobID {
	var id cs.JobID
	r := rand.New(rand.NewPCG(j.Seed, 0x10b))
	for i := range id {
		id[i] = byte(r.Uint32())
	}
	return id
}

// Dir is the job's checkpoints directory, Base/<job id>.
func (j *Job) Dir() vfs.Path { return cs.JobCheckpointsDir(j.Base, j.ID()) }

// Canaries are files outside the job's directory that nothing may delete: one
// beside the job (Base/canary/...), one in a sibling directory whose name has
// the job's directory name as a prefix, and user files whose names start like
// vfskit's temporary names, which sweeping temporary files must leave.
func (j *Job) Canaries() []vfs.Path {
	id := j.ID().String()
	return []vfs.Path{
		j.Base.Join("canary", "state-1"),
		j.Base.Join("canary", "deep", "state-2"),
		j.Base.Join(id+"-canary", "state-3"),
		j.Base.Join("canary", ".vfskit-tmp-1"),
		j.Base.Join(".vfskit-tmp-cache", "db"),
	}
}

// CanaryData is the content of the i-th canary file.
func (j *Job) CanaryData(i int) []byte {
	return j.bytes(0xca, uint64(i), 100+i*37)
}

// WriteCanaries writes the canary files through reg (an unfaulted registry).
func (j *Job) WriteCanaries(ctx context.Context, reg *vfs.Registry) error {
	for i, p := range j.Canaries() {
		fsys, err := reg.GetPath(ctx, p)
		if err != nil {
			return err
		}
		if err := vfs.WriteFile(ctx, fsys, p, j.CanaryData(i), vfs.Overwrite); err != nil {
			return err
		}
	}
	return nil
}

// CheckCanaries counts the canary files that are not there byte for byte,
// reading through reg.
func (j *Job) CheckCanaries(ctx context.Context, reg *vfs.Registry) (damaged int, errs []error) {
	for i, p := range j.Canaries() {
		fsys, err := reg.GetPath(ctx, p)
		if err == nil {
			var got []byte
			got, err = vfs.ReadFile(ctx, fsys, p)
			if err == nil && !bytes.Equal(got, j.CanaryData(i)) {
				err = fmt.Errorf("canary %s holds %d bytes that differ from the %d written", p, len(got), len(j.CanaryData(i)))
			}
		}
		if err != nil {
			damaged++
			errs = append(errs, err)
		}
	}
	return damaged, errs
}

// bytes returns n bytes determined by the seed, kind and index.
func (j *Job) bytes(kind, index uint64, n int) []byte {
	r := rand.New(rand.NewPCG(j.Seed^kind<<56, index))
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := r.Uint64()
		for k := 0; k < 8 && i+k < n; k++ {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	return b
}

// sizes returns the sizes of the state streams of checkpoint id.
func (j *Job) sizes(id int64) []int {
	r := rand.New(rand.NewPCG(j.Seed^0x51, uint64(id)))
	sizes := make([]int, j.Streams)
	for k := range sizes {
		switch r.IntN(4) {
		case 0:
			sizes[k] = r.IntN(j.Threshold) // inline
		default:
			sizes[k] = j.Threshold + r.IntN(j.MaxState)
		}
	}
	if j.BigEvery > 0 && id/2%int64(j.BigEvery) == 1 { // the first cycle's, so short runs have one
		sizes[0] = j.BigSize + r.IntN(4096)
	}
	return sizes
}

// crafted reports whether checkpoint id names the canary files: checkpoint 0
// (WriteCrafted) and every CraftEvery-th.
func (j *Job) crafted(id int64) bool {
	return id == 0 || j.CraftEvery > 0 && id/2%int64(j.CraftEvery) == 3%int64(j.CraftEvery)
}

// Expected returns the bytes every state handle of checkpoint id restores, in
// the order of its metadata's handles. Only even ids are ever completed.
func (j *Job) Expected(id int64) [][]byte {
	var want [][]byte
	for k, n := range j.sizes(id) {
		want = append(want, j.bytes(0x5a, uint64(id)<<8|uint64(k), n))
	}
	if j.crafted(id) {
		for i := range j.Canaries() {
			want = append(want, j.CanaryData(i))
		}
	}
	return want
}

// Step is the name of a step of a cycle, as CycleResult reports it.
type Step string

// The steps of a cycle.
const (
	StepDecline  Step = "decline"  // the declined checkpoint and its DisposeOnFailure
	StepState    Step = "state"    // writing the completed checkpoint's state
	StepFinalize Step = "finalize" // FinalizeCheckpoint
	StepRetain   Step = "retain"   // RetainCheckpoints
	StepDispose  Step = "dispose"  // DisposeStorageLocation of the oldest
)

// CycleResult is what one cycle did.
type CycleResult struct {
	// Checkpoint is the id of the checkpoint the cycle completes.
	Checkpoint int64
	// Finalized is set when FinalizeCheckpoint returned success.
	Finalized bool
	// Outside counts the references outside the job directory that retention
	// reported and left in place.
	Outside int
	// Discarded counts the checkpoints retention and dispose deleted.
	Discarded int
	// Interrupted is the step its process was killed in (ChildRunner).
	Interrupted Step
	// Failed is the step that failed, "" when none did; Err its error.
	Failed Step
	Err    error
}

// Cycle runs cycle c (see Job). It stops at the first failing step. progress,
// when not nil, is called after each step that succeeded.
func (j *Job) Cycle(ctx context.Context, c int, progress func(Step, CycleResult)) CycleResult {
	j.Defaults()
	r := CycleResult{Checkpoint: int64(2*c + 2)}
	fail := func(s Step, err error) CycleResult {
		r.Failed, r.Err = s, err
		return r
	}
	done := func(s Step) {
		if progress != nil {
			progress(s, r)
		}
	}
	opts := []cs.Option{cs.WithRegistry(j.Registry)}
	s, err := cs.NewFsCheckpointStorage(ctx, j.ID(), j.Base, vfs.Path{}, j.Threshold, 4096, opts...)
	if err != nil {
		return fail(StepDecline, err)
	}
	if err := j.decline(ctx, s, r.Checkpoint-1); err != nil {
		return fail(StepDecline, err)
	}
	done(StepDecline)

	if step, err := j.complete(ctx, s, r.Checkpoint, func() { done(StepState) }); err != nil {
		return fail(step, err)
	}
	r.Finalized = true
	done(StepFinalize)

	reports, err := cs.RetainCheckpoints(ctx, j.Dir(), j.Retain, opts...)
	for _, rep := range reports {
		r.Outside += len(rep.Outside)
		if rep.Undecodable == nil {
			r.Discarded++
		}
	}
	if err != nil {
		return fail(StepRetain, err)
	}
	done(StepRetain)

	if j.DisposeEvery > 0 && c%j.DisposeEvery == j.DisposeEvery-1 {
		infos, err := cs.ListCompletedCheckpoints(ctx, j.Dir(), opts...)
		if err != nil {
			return fail(StepDispose, err)
		}
		if len(infos) >= 2 {
			loc, err := cs.ResolveCheckpointPointer(ctx, infos[0].Dir.String(), opts...)
			if err == nil {
				err = loc.DisposeStorageLocation(ctx)
			}
			if err != nil {
				return fail(StepDispose, err)
			}
			r.Discarded++
		}
		done(StepDispose)
	}
	return r
}

// complete writes checkpoint id of s: its state, then FinalizeCheckpoint.
// stateDone is called once the state is written. It returns the step that
// failed.
func (j *Job) complete(ctx context.Context, s *cs.FsCheckpointStorage, id int64, stateDone func()) (Step, error) {
	loc, err := s.InitializeLocationForCheckpoint(ctx, id)
	if err != nil {
		return StepState, err
	}
	m, err := j.writeState(ctx, loc, id)
	if err != nil {
		_ = loc.DisposeOnFailure(ctx)
		return StepState, err
	}
	stateDone()
	if _, err := cs.FinalizeCheckpoint(ctx, loc, m); err != nil {
		return StepFinalize, err
	}
	return "", nil
}

// WriteCrafted writes checkpoint 0 of the job through reg (an unfaulted
// registry): a completed checkpoint whose _metadata names the canary files as
// its exclusive state, as a crafted or foreign one would. Being the oldest, it
// is the first that retention discards.
func (j *Job) WriteCrafted(ctx context.Context, reg *vfs.Registry) error {
	j.Defaults()
	s, err := cs.NewFsCheckpointStorage(ctx, j.ID(), j.Base, vfs.Path{}, j.Threshold, 4096, cs.WithRegistry(reg))
	if err != nil {
		return err
	}
	_, err = j.complete(ctx, s, 0, func() {})
	return err
}

// decline starts checkpoint id, writes some state and disposes of it.
func (j *Job) decline(ctx context.Context, s *cs.FsCheckpointStorage, id int64) error {
	loc, err := s.InitializeLocationForCheckpoint(ctx, id)
	if err != nil {
		return err
	}
	_, werr := j.stream(ctx, loc, j.bytes(0xdc, uint64(id), j.Threshold+int(id%977)))
	if err := loc.DisposeOnFailure(ctx); err != nil {
		return err
	}
	return werr
}

// writeState writes the state of checkpoint id into loc and returns its
// metadata.
func (j *Job) writeState(ctx context.Context, loc cs.CheckpointStorageLocation, id int64) (*cs.CheckpointMetadata, error) {
	want := j.Expected(id)
	n := len(j.sizes(id))
	op := cs.OperatorState{UID: "chaos", Parallelism: n, MaxParallelism: 128}
	for k, data := range want[:n] {
		h, err := j.stream(ctx, loc, data)
		if err != nil {
			return nil, err
		}
		if h == nil { // nothing written: an empty inline state
			h = cs.NewByteStreamStateHandle(fmt.Sprintf("empty-%d", k), nil)
		}
		op.Subtasks = append(op.Subtasks, cs.SubtaskState{Index: k, Handles: []metadata.Handle{h}})
	}
	if j.crafted(id) {
		var hs []metadata.Handle
		for i, p := range j.Canaries() {
			hs = append(hs, cs.NewFileStateHandle(p, int64(len(j.CanaryData(i)))))
		}
		op.Subtasks = append(op.Subtasks, cs.SubtaskState{Index: n, Handles: hs})
		op.Parallelism++
	}
	return &cs.CheckpointMetadata{JobID: j.ID(), CheckpointID: id, Operators: []cs.OperatorState{op}}, nil
}

// stream writes data into a new exclusive state stream of f, in pieces.
func (j *Job) stream(ctx context.Context, f cs.CheckpointStreamFactory, data []byte) (cs.StreamStateHandle, error) {
	out, err := f.CreateCheckpointStateOutputStream(ctx, cs.Exclusive)
	if err != nil {
		return nil, err
	}
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 7000)
		if _, err := out.Write(rest[:n]); err != nil {
			_ = out.Close()
			return nil, err
		}
		rest = rest[n:]
	}
	return out.CloseAndGetHandle(ctx)
}

// Verification is what Verify found.
type Verification struct {
	// Listed are the ids of the checkpoints listed as completed.
	Listed []int64
	// Broken are the ids of the listed checkpoints that do not restore byte for
	// byte, Why why.
	Broken []int64
	Why    []error
}

// Verify lists the job's completed checkpoints through reg (an unfaulted
// registry) and restores each, comparing every state byte for byte with
// Expected.
func (j *Job) Verify(ctx context.Context, reg *vfs.Registry) (Verification, error) {
	j.Defaults()
	var v Verification
	infos, err := cs.ListCompletedCheckpoints(ctx, j.Dir(), cs.WithRegistry(reg))
	if err != nil {
		return v, err
	}
	for _, info := range infos {
		v.Listed = append(v.Listed, info.CheckpointID)
		if err := j.restore(ctx, reg, info); err != nil {
			v.Broken = append(v.Broken, info.CheckpointID)
			v.Why = append(v.Why, fmt.Errorf("chk-%d is listed as completed: %w", info.CheckpointID, err))
		}
	}
	return v, nil
}

// restore reads every state of one checkpoint and compares it with Expected.
func (j *Job) restore(ctx context.Context, reg *vfs.Registry, info cs.CheckpointInfo) error {
	if info.CheckpointID%2 != 0 {
		return errors.New("it was declined and never finalized")
	}
	m, _, err := cs.LoadCheckpoint(ctx, info.Dir.String(), cs.WithRegistry(reg))
	if err != nil {
		return err
	}
	want := j.Expected(info.CheckpointID)
	hs := m.Handles()
	if len(hs) != len(want) {
		return fmt.Errorf("%d state handles, %d written", len(hs), len(want))
	}
	for i, mh := range hs {
		h, ok := mh.(cs.StreamStateHandle)
		if !ok {
			return fmt.Errorf("state %d is a %T", i, mh)
		}
		in, err := h.OpenInputStream(ctx)
		if err != nil {
			return fmt.Errorf("state %d (%v): %w", i, h, err)
		}
		got, err := io.ReadAll(in)
		_ = in.Close()
		if err != nil {
			return fmt.Errorf("state %d (%v): %w", i, h, err)
		}
		if !bytes.Equal(got, want[i]) {
			return fmt.Errorf("state %d (%v): %d bytes that differ from the %d written", i, h, len(got), len(want[i]))
		}
	}
	return nil
}

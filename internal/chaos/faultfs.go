package chaos

import (
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"sync"

	"github.com/vfskit/vfskit/vfs"
)

// ErrInjected is wrapped by every error a FaultFS injects.
var ErrInjected = errors.New("chaos: injected fault")

// FSFaults says which faults a FaultFS injects into each operation. The zero
// value injects none.
type FSFaults struct {
	// Fail is the fraction of operations that fail before they reach the
	// store: nothing happens.
	Fail float64
	// Lose is the fraction of operations that are carried out and then
	// reported as failed, as when the answer is lost.
	Lose float64
	// Seed seeds the PRNG that picks the faulted operations.
	Seed uint64
}

// FSCounts is what a FaultFS did so far.
type FSCounts struct {
	Ops     int // operations seen (stream writes and closes included)
	Failed  int // failed before reaching the store
	Lost    int // carried out, reported failed
	Crashes int // times the store died (CrashAfter)
	DeadOps int // operations refused while the store was dead
}

// Faulted is the number of operations that did not get a true answer.
func (c FSCounts) Faulted() int { return c.Failed + c.Lost + c.DeadOps }

// FaultFS is a vfs.FileSystem that injects faults into another one: each
// operation may fail before it reaches the store or have its answer lost
// (FSFaults), and the store may die after a number of operations (CrashAfter)
// and stay dead — every operation failing — until Revive. A recursive Delete is
// sent as one delete per entry (files in listing order, then directories
// bottom-up), as an object store deletes key by key, so a crash can land in the
// middle of it. An output stream whose Close fails before reaching the store is
// aborted (vfs.Aborter): nothing of it is published. OnOp, when set, is called
// with the name of every operation before it is carried out (a child process
// reports its progress with it). FaultFS is safe for concurrent use.
type FaultFS struct {
	vfs.FileSystem
	// OnOp is called before every operation; set it before use.
	OnOp func(op string)

	mu      sync.Mutex
	faults  FSFaults
	rng     *rand.Rand
	crashIn int // operations left before the crash; < 0: no crash planned
	dead    bool
	counts  FSCounts
}

// NewFaultFS wraps inner, injecting nothing until Set or CrashAfter.
func NewFaultFS(inner vfs.FileSystem) *FaultFS {
	return &FaultFS{FileSystem: inner, rng: rand.New(rand.NewPCG(0, 0)), crashIn: -1}
}

// Set replaces the faults and reseeds the PRNG with f.Seed.
func (f *FaultFS) Set(faults FSFaults) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = faults
	f.rng = rand.New(rand.NewPCG(faults.Seed, faults.Seed^0x5851f42d4c957f2d))
}

// CrashAfter makes the store die after n more operations: from then on every
// operation fails until Revive.
func (f *FaultFS) CrashAfter(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.crashIn = max(n, 0)
}

// Revive brings a dead store back (with everything it held) and cancels a
// planned crash.
func (f *FaultFS) Revive() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dead, f.crashIn = false, -1
}

// Counts returns what the FaultFS did so far.
func (f *FaultFS) Counts() FSCounts {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts
}

// outcome is the fate of one operation.
type outcome int

const (
	pass outcome = iota
	fail         // not carried out
	lose         // carried out, reported failed
)

// decide counts one operation and picks its fate.
func (f *FaultFS) decide(op string) outcome {
	if f.OnOp != nil {
		f.OnOp(op)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counts.Ops++
	if f.crashIn == 0 {
		f.crashIn, f.dead = -1, true
		f.counts.Crashes++
	} else if f.crashIn > 0 {
		f.crashIn--
	}
	if f.dead {
		f.counts.DeadOps++
		return fail
	}
	x := f.rng.Float64()
	switch {
	case x < f.faults.Fail:
		f.counts.Failed++
		return fail
	case x < f.faults.Fail+f.faults.Lose:
		f.counts.Lost++
		return lose
	}
	return pass
}

func injected(op string, p vfs.Path) error {
	return &fs.PathError{Op: op, Path: p.String(), Err: ErrInjected}
}

// do runs fn under the fate of op.
func (f *FaultFS) do(op string, p vfs.Path, fn func() error) error {
	switch f.decide(op) {
	case fail:
		return injected(op, p)
	case lose:
		_ = fn()
		return injected(op, p)
	}
	return fn()
}

// Stat is the inner Stat, faulted.
func (f *FaultFS) Stat(ctx context.Context, p vfs.Path) (st vfs.FileStatus, err error) {
	err = f.do("stat", p, func() (e error) { st, e = f.FileSystem.Stat(ctx, p); return e })
	if err != nil {
		return vfs.FileStatus{}, err
	}
	return st, nil
}

// List is the inner List, faulted.
func (f *FaultFS) List(ctx context.Context, dir vfs.Path) (sts []vfs.FileStatus, err error) {
	err = f.do("list", dir, func() (e error) { sts, e = f.FileSystem.List(ctx, dir); return e })
	if err != nil {
		return nil, err
	}
	return sts, nil
}

// Open is the inner Open, faulted.
func (f *FaultFS) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	var in vfs.InputStream
	err := f.do("open", p, func() (e error) { in, e = f.FileSystem.Open(ctx, p); return e })
	if err != nil {
		if in != nil {
			_ = in.Close()
		}
		return nil, err
	}
	return in, nil
}

// Mkdirs is the inner Mkdirs, faulted.
func (f *FaultFS) Mkdirs(ctx context.Context, p vfs.Path) error {
	return f.do("mkdirs", p, func() error { return f.FileSystem.Mkdirs(ctx, p) })
}

// Rename is the inner Rename, faulted.
func (f *FaultFS) Rename(ctx context.Context, src, dst vfs.Path) error {
	return f.do("rename", src, func() error { return f.FileSystem.Rename(ctx, src, dst) })
}

// Delete is the inner Delete, faulted; a recursive one is one faulted delete
// per entry, files first, then directories bottom-up.
func (f *FaultFS) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	if !recursive {
		return f.do("delete", p, func() error { return f.FileSystem.Delete(ctx, p, false) })
	}
	var files, dirs []vfs.Path
	err := f.do("list", p, func() error {
		return vfs.Walk(ctx, f.FileSystem, p, func(st vfs.FileStatus, err error) error {
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return nil
			case err != nil:
				return err
			case st.IsDir:
				dirs = append(dirs, st.Path)
			default:
				files = append(files, st.Path)
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		files = append(files, dirs[i])
	}
	for _, e := range files {
		if err := f.do("delete", e, func() error { return f.FileSystem.Delete(ctx, e, false) }); err != nil {
			return err
		}
	}
	return nil
}

// Create is the inner Create, faulted; so are the stream's Write and Close.
func (f *FaultFS) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	var out vfs.OutputStream
	err := f.do("create", p, func() (e error) { out, e = f.FileSystem.Create(ctx, p, mode); return e })
	if err != nil {
		if out != nil {
			vfs.Discard(out, nil)
		}
		return nil, err
	}
	return &faultStream{OutputStream: out, f: f, p: p}, nil
}

// faultStream is an output stream of a FaultFS.
type faultStream struct {
	vfs.OutputStream
	f      *FaultFS
	p      vfs.Path
	failed bool
}

func (s *faultStream) Write(b []byte) (int, error) {
	if s.failed {
		return 0, injected("write", s.p)
	}
	if s.f.decide("write") != pass {
		// A write that may or may not have reached the store: the stream is
		// broken and will not publish.
		s.failed = true
		return 0, injected("write", s.p)
	}
	return s.OutputStream.Write(b)
}

// Abort discards the stream.
func (s *faultStream) Abort() error {
	s.failed = true
	if a, ok := s.OutputStream.(vfs.Aborter); ok {
		return a.Abort()
	}
	return nil
}

func (s *faultStream) Close() error {
	if s.failed {
		vfs.Discard(s.OutputStream, nil)
		return injected("close", s.p)
	}
	switch s.f.decide("close") {
	case fail:
		s.failed = true
		vfs.Discard(s.OutputStream, nil)
		return injected("close", s.p)
	case lose:
		s.failed = true
		_ = s.OutputStream.Close()
		return injected("close", s.p)
	}
	return s.OutputStream.Close()
}

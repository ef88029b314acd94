// Package fault is a layer that injects failures, for tests: errors, latency,
// short reads and failed closes, chosen by operation and path pattern, with a
// seed so that a failing run can be repeated. It is exported so that
// integrators can test their own code against a file system that fails.
//
// Each Rule matches calls by operation (Ops) and by a path.Match pattern on
// the path's path part (Path); it can skip the first matching calls (After),
// fire a limited number of times (Times) and fire at random (Probability,
// drawn from a generator seeded by New's seed, so the same calls in the same
// order fail the same way). The first rule that fires decides; its Latency is
// waited for (a cancelled context ends the wait with its error), then its Err
// is returned, wrapped in an *fs.PathError that errors.Is both Err and
// ErrInjected.
//
// The contract of vfs holds under faults: a write or close that fails on an
// output stream discards it (Abort below), so nothing is published. ReadFile,
// WriteFile and CopyFile go through this layer's Open and Create (and so its
// stream faults) when a rule could match them, and straight to the fast path
// below otherwise.
package fault

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"sync"
	"time"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// Op names an operation a Rule matches: vfs.Op, whose spelling ("stat",
// "clean_temp", "recoverable_open") layer/record and layer/otel use too, so a
// rule can name any of vfs's Op constants or its string.
type Op = vfs.Op

// The operations. Read, Write and Close are calls on streams (Read covers
// ReadAt); the path is the stream's. Delete covers DeleteVersion. ReadFile,
// WriteFile and CopyFile are matched as the Open, Read, Close and Create,
// Write, Close they are made of; the calls of a recoverable writer by their
// vfs.Op (vfs.OpPersist, vfs.OpCommit…).
const (
	Stat      = vfs.OpStat
	List      = vfs.OpList
	Open      = vfs.OpOpen
	Create    = vfs.OpCreate
	Mkdirs    = vfs.OpMkdirs
	Delete    = vfs.OpDelete
	Rename    = vfs.OpRename // the source path
	Read      = vfs.OpRead
	Write     = vfs.OpWrite
	Close     = vfs.OpClose
	CleanTemp = vfs.OpCleanTemp
	RealPath  = vfs.OpRealPath
)

// ops are the operations a Rule can name.
var ops = []Op{Stat, List, Open, Create, Mkdirs, Delete, Rename, Read, Write, Close, CleanTemp, RealPath,
	RecoverableOpen, Recover, RecoverForCommit, CleanupRecoverable, Persist, CloseForCommit, Commit, CommitAfterRecovery}

// ErrInjected is wrapped by every error this layer makes up.
var ErrInjected = errors.New("injected fault")

// Rule is one fault.
type Rule struct {
	// Ops are the operations the rule matches (the constants below); none
	// means every one. New refuses an operation this layer never matches.
	Ops []Op
	// Path is a path.Match pattern for the path part ("/chk-*/_metadata");
	// "" matches every path.
	Path string
	// After is the number of matching calls to let through first.
	After int
	// Times is the most times the rule fires; 0 means no limit.
	Times int
	// Probability is the chance that a matching call fires, in (0, 1]; 0
	// means always.
	Probability float64
	// Latency is waited before the call goes on (or fails).
	Latency time.Duration
	// Err is returned; nil means the call goes on after Latency.
	Err error
	// ShortRead makes a Read return at most half the bytes asked for (at
	// least one), which is legal and which readers must handle. Only Read.
	ShortRead bool
}

// FS injects the faults of its rules into the file system below it.
type FS struct {
	layer.Base
	mu      sync.Mutex
	rng     *rand.Rand
	rules   []Rule
	matched []int
	fired   []int
}

// New returns inner with rules, drawing random choices from seed. A rule
// with an invalid Path pattern or a Probability outside [0, 1] fails with
// an error naming it.
func New(inner vfs.FileSystem, seed uint64, rules ...Rule) (*FS, error) {
	for i, r := range rules {
		if _, err := path.Match(r.Path, "/"); err != nil {
			return nil, fmt.Errorf("fault: rule %d: path pattern %q: %w", i, r.Path, err)
		}
		for _, op := range r.Ops {
			if !slices.Contains(ops, op) {
				return nil, fmt.Errorf("fault: rule %d: operation %q is not one this layer matches (expected one of %v; ReadFile, WriteFile and CopyFile are matched as the open, read, close and create, write, close they are made of)", i, op, ops)
			}
		}
		if r.Probability < 0 || r.Probability > 1 || r.After < 0 || r.Times < 0 || r.Latency < 0 {
			return nil, fmt.Errorf("fault: rule %d: %+v (expected Probability in [0, 1], After, Times and Latency not negative)", i, r)
		}
	}
	return &FS{
		Base:    layer.Base{Inner: inner},
		rng:     rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		rules:   slices.Clone(rules),
		matched: make([]int, len(rules)),
		fired:   make([]int, len(rules)),
	}, nil
}

// Fired returns how many times rule i (in New's order) fired.
func (f *FS) Fired(i int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fired[i]
}

func (r *Rule) matches(op Op, p vfs.Path) bool {
	if len(r.Ops) > 0 && !slices.Contains(r.Ops, op) {
		return false
	}
	if r.Path == "" {
		return true
	}
	ok, _ := path.Match(r.Path, p.Path())
	return ok
}

// pick returns the rule that fires for op on p, or nil.
func (f *FS) pick(op Op, p vfs.Path) *Rule {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.rules {
		r := &f.rules[i]
		if !r.matches(op, p) {
			continue
		}
		f.matched[i]++
		if f.matched[i] <= r.After || r.Times > 0 && f.fired[i] >= r.Times {
			continue
		}
		if r.Probability > 0 && f.rng.Float64() >= r.Probability {
			continue
		}
		f.fired[i]++
		return r
	}
	return nil
}

// inject applies the rule that fires for op on p, if any: it waits, then
// returns the rule (for ShortRead) and its error.
func (f *FS) inject(ctx context.Context, op Op, p vfs.Path) (*Rule, error) {
	r := f.pick(op, p)
	if r == nil {
		return nil, nil
	}
	if r.Latency > 0 {
		t := time.NewTimer(r.Latency)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return r, vfs.NewPathError(string(op), p, ctx.Err())
		}
	}
	if r.Err != nil {
		return r, vfs.NewPathError(string(op), p, fmt.Errorf("%w: %w", ErrInjected, r.Err))
	}
	return r, nil
}

// mayMatch reports whether a rule could fire for any of ops on p.
func (f *FS) mayMatch(p vfs.Path, ops ...Op) bool {
	for i := range f.rules {
		for _, op := range ops {
			if f.rules[i].matches(op, p) {
				return true
			}
		}
	}
	return false
}

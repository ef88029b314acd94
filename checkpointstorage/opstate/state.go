package opstate

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"sort"

	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// State is the operator state of a checkpoint or savepoint: per operator its
// named states with each subtask's entries, and its coordinator state.
type State struct {
	// Dir is the checkpoint's directory (relative state handles are read
	// from it).
	Dir vfs.Path
	// Operators are the operators in the metadata's order, those without
	// operator or coordinator state included.
	Operators []*Operator
}

// Operator is one operator's state.
type Operator struct {
	ID          metadata.OperatorID
	UID, Name   string
	Parallelism int
	// States are the named states of the subtasks' managed operator state,
	// RawStates those of their raw operator state, each in the order of
	// first appearance.
	States    []*NamedState
	RawStates []*NamedState
	// Coordinator is the operator coordinator's state; nil when none.
	Coordinator *CoordinatorState
}

// NamedState is one named operator state (a list, union list or broadcast
// state) across the subtasks that hold it.
type NamedState struct {
	Name string
	Mode metadata.DistributionMode
	// Subtasks are the subtasks holding the state, by ascending index.
	Subtasks []*SubtaskEntries
}

// SubtaskEntries is one subtask's part of a named state.
type SubtaskEntries struct {
	Index   int
	Entries []*Entry
	// Err is why the subtask's state stream could not be read (a state file
	// missing, of another size than recorded, or on a scheme the registry
	// does not serve); Entries is then empty.
	Err error
}

// Entry is one entry of a named state: a list element (or, for a broadcast
// state, the whole map) as the state's serializer wrote it into the operator
// state stream, from its offset to the next offset of the stream (or its
// end).
type Entry struct {
	Bytes []byte
	// Start is the entry's offset in the subtask's operator state stream.
	Start int64
	// Reader is the decoded entry of a "SourceReaderState" list; nil for
	// other states, or when the entry's framing is not a split's
	// (ReaderErr says why).
	Reader    *ReaderEntry
	ReaderErr error
}

// Option configures Read and Load.
type Option func(*options)

type options struct {
	registry *vfs.Registry
}

// WithRegistry reads state files through r instead of vfs's default
// registry.
func WithRegistry(r *vfs.Registry) Option { return func(o *options) { o.registry = r } }

func buildOptions(opts []Option) options {
	o := options{registry: vfs.DefaultRegistry()}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// Load reads the checkpoint or savepoint at pointer (its directory or
// _metadata file, any scheme) and its operator state (see Read).
func Load(ctx context.Context, pointer string, opts ...Option) (*State, *metadata.Metadata, error) {
	o := buildOptions(opts)
	md, loc, err := checkpointstorage.LoadCheckpoint(ctx, pointer, checkpointstorage.WithRegistry(o.registry))
	if err != nil {
		return nil, nil, err
	}
	st, err := Read(ctx, md, loc.CheckpointDir(), opts...)
	return st, md, err
}

// Read reads the operator state of md, the metadata of the checkpoint in
// directory dir: every OperatorStreamStateHandle (and Flink's file-merging
// variant) of every subtask, held inline or in a file of any scheme, cut into
// entries at the offsets the metadata records, and every coordinator state.
// Entries of a "SourceReaderState" list are decoded (DecodeReaderEntry);
// coordinator states too (DecodeCoordinator). A split or enumerator no
// decoder knows stays bytes. Offsets that do not fit their stream are an
// error naming the operator and subtask; a state file that cannot be read
// (missing, of another size than recorded, on a scheme the registry does not
// serve) is recorded in its subtasks' Err (see Unreadable) and reading goes
// on.
func Read(ctx context.Context, md *metadata.Metadata, dir vfs.Path, opts ...Option) (*State, error) {
	o := buildOptions(opts)
	st := &State{Dir: dir}
	for i := range md.Operators {
		mop := &md.Operators[i]
		op := &Operator{ID: mop.ID, UID: mop.UID, Name: mop.Name, Parallelism: mop.Parallelism}
		if mop.CoordinatorState != nil {
			op.Coordinator = DecodeCoordinator(mop.CoordinatorState.Data)
		}
		for j := range mop.Subtasks {
			sub := &mop.Subtasks[j]
			if sub.State == nil {
				continue
			}
			for _, slot := range []struct {
				h   metadata.Handle
				dst *[]*NamedState
			}{{sub.State.ManagedOperatorState, &op.States}, {sub.State.RawOperatorState, &op.RawStates}} {
				sh, err := o.readHandle(ctx, slot.h, dir)
				if sh == nil && err != nil {
					return nil, fmt.Errorf("operator %s subtask %d: %w", mop.ID, sub.Index, err)
				}
				if sh == nil {
					continue
				}
				if err != nil {
					for _, ns := range sh.states {
						*slot.dst = addSubtask(*slot.dst, ns, &SubtaskEntries{Index: sub.Index, Err: err})
					}
					continue
				}
				if err := sh.cut(); err != nil {
					return nil, fmt.Errorf("operator %s subtask %d: %w", mop.ID, sub.Index, err)
				}
				for k, ns := range sh.states {
					*slot.dst = addSubtask(*slot.dst, ns, &SubtaskEntries{Index: sub.Index, Entries: sh.entries[k]})
				}
			}
		}
		st.Operators = append(st.Operators, op)
	}
	return st, nil
}

// Operator returns the operator whose id (hex) or uid is idOrUID, nil when
// none is.
func (s *State) Operator(idOrUID string) *Operator {
	for _, op := range s.Operators {
		if op.ID.String() == idOrUID || (op.UID != "" && op.UID == idOrUID) {
			return op
		}
	}
	return nil
}

// Unreadable returns every subtask whose state stream could not be read,
// with the operator and the state's name.
func (s *State) Unreadable() []UnreadableState {
	var us []UnreadableState
	for _, op := range s.Operators {
		for _, l := range [][]*NamedState{op.States, op.RawStates} {
			for _, ns := range l {
				for _, sub := range ns.Subtasks {
					if sub.Err != nil {
						us = append(us, UnreadableState{Operator: op, State: ns.Name, Subtask: sub.Index, Err: sub.Err})
					}
				}
			}
		}
	}
	return us
}

// UnreadableState is a subtask's part of a named state that could not be
// read.
type UnreadableState struct {
	Operator *Operator
	State    string
	Subtask  int
	Err      error
}

func addSubtask(states []*NamedState, ns metadata.NamedState, sub *SubtaskEntries) []*NamedState {
	var target *NamedState
	for _, s := range states {
		if s.Name == ns.Name {
			target = s
		}
	}
	if target == nil {
		target = &NamedState{Name: ns.Name, Mode: ns.Mode}
		states = append(states, target)
	}
	target.Subtasks = append(target.Subtasks, sub)
	return states
}

// streamHandle is one subtask's operator state stream read into memory.
type streamHandle struct {
	handle  metadata.Handle // *OperatorStreamStateHandle or *FileMergingOperatorStreamStateHandle
	states  []metadata.NamedState
	stream  []byte
	entries [][]*Entry // per state
}

// readHandle reads the stream of an operator state handle; nil for a nil or
// empty handle.
func (o *options) readHandle(ctx context.Context, h metadata.Handle, dir vfs.Path) (*streamHandle, error) {
	var sh *streamHandle
	switch x := h.(type) {
	case nil:
		return nil, nil
	case *metadata.OperatorStreamStateHandle:
		if x == nil {
			return nil, nil
		}
		sh = &streamHandle{handle: x, states: x.States}
	case *metadata.FileMergingOperatorStreamStateHandle:
		if x == nil || x.Empty {
			return nil, nil
		}
		sh = &streamHandle{handle: x, states: x.States}
	default:
		return nil, fmt.Errorf("operator state in a %s, expected an OperatorStreamStateHandle: %w", metadata.KindName(h), fs.ErrInvalid)
	}
	var err error
	sh.stream, err = o.streamBytes(ctx, delegate(sh.handle), dir)
	return sh, err
}

func delegate(h metadata.Handle) metadata.Handle {
	switch x := h.(type) {
	case *metadata.OperatorStreamStateHandle:
		return x.Delegate
	case *metadata.FileMergingOperatorStreamStateHandle:
		return x.Delegate
	}
	return nil
}

// maxStream is the largest operator state stream Read takes into memory.
const maxStream = 1 << 30

// streamBytes returns the bytes of a stream handle: inline, or read from its
// file (exactly the recorded size).
func (o *options) streamBytes(ctx context.Context, h metadata.Handle, dir vfs.Path) ([]byte, error) {
	var p vfs.Path
	var off, size int64
	var segment bool
	var err error
	switch x := h.(type) {
	case *metadata.ByteStreamStateHandle:
		return x.Data, nil
	case *metadata.EmptySegmentFileStateHandle:
		return nil, nil
	case *metadata.FileStateHandle:
		p, err = vfs.ParsePath(x.Path)
		size = x.Size
	case *metadata.RelativeFileStateHandle:
		p, err = dir.Resolve(x.RelativePath)
		size = x.Size
	case *metadata.SegmentFileStateHandle:
		p, err = vfs.ParsePath(x.Path)
		off, size, segment = x.StartPos, x.Size, true
	default:
		return nil, fmt.Errorf("operator state stream in a %s: %w", metadata.KindName(h), fs.ErrInvalid)
	}
	if err != nil {
		return nil, err
	}
	if size < 0 || size > maxStream || off < 0 {
		return nil, vfs.NewPathError("read operator state", p, fmt.Errorf("a recorded size of %d bytes at offset %d: %w", size, off, fs.ErrInvalid))
	}
	fsys, err := o.registry.GetPath(ctx, p)
	if err != nil {
		return nil, err
	}
	in, err := vfs.OpenRegular(ctx, fsys, p)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	if off > 0 {
		if _, err := in.Seek(off, io.SeekStart); err != nil {
			return nil, vfs.NewPathError("read operator state", p, err)
		}
	}
	buf := make([]byte, 0, min(size, 1<<20))
	w := bytesWriter{b: buf}
	n, err := io.Copy(&w, io.LimitReader(in, size+1))
	if err != nil {
		return nil, vfs.NewPathError("read operator state", p, err)
	}
	if n < size || (n > size && !segment) {
		what := fmt.Sprintf("%d bytes", n)
		if n > size {
			what = fmt.Sprintf("more than %d bytes", size)
		}
		return nil, vfs.NewPathError("read operator state", p, fmt.Errorf("the file holds %s, the metadata records %d: %w", what, size, fs.ErrInvalid))
	}
	return w.b[:size], nil
}

type bytesWriter struct{ b []byte }

func (w *bytesWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// cut cuts the stream into the entries of each named state: an entry runs
// from its offset to the next offset of any state (or the stream's end).
func (sh *streamHandle) cut() error {
	type at struct {
		off        int64
		state, idx int
	}
	var all []at
	for i, ns := range sh.states {
		for j, off := range ns.Offsets {
			if off < 0 || off > int64(len(sh.stream)) {
				return fmt.Errorf("state %q entry %d at offset %d, outside its stream of %d bytes: %w", ns.Name, j, off, len(sh.stream), fs.ErrInvalid)
			}
			if j > 0 && off < ns.Offsets[j-1] {
				return fmt.Errorf("state %q entry %d at offset %d, before entry %d at %d: %w", ns.Name, j, off, j-1, ns.Offsets[j-1], fs.ErrInvalid)
			}
			all = append(all, at{off, i, j})
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].off < all[b].off })
	sh.entries = make([][]*Entry, len(sh.states))
	for i, ns := range sh.states {
		sh.entries[i] = make([]*Entry, len(ns.Offsets))
	}
	for k, a := range all {
		end := int64(len(sh.stream))
		if k+1 < len(all) {
			end = all[k+1].off
		}
		e := &Entry{Bytes: sh.stream[a.off:end], Start: a.off}
		if sh.states[a.state].Name == SourceReaderStateName {
			e.Reader, e.ReaderErr = DecodeReaderEntry(e.Bytes)
		}
		sh.entries[a.state][a.idx] = e
	}
	return nil
}

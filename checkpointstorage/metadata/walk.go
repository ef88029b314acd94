package metadata

import (
	"github.com/vfskit/vfskit/vfs"
)

// Children returns the handles h holds directly (a key-groups handle's
// delegate, an incremental handle's metadata, shared and private files, a
// changelog handle's parts, ...), nil ones left out.
func Children(h Handle) []Handle {
	if isNil(h) {
		return nil
	}
	var c []Handle
	add := func(hs ...Handle) {
		for _, x := range hs {
			if !isNil(x) {
				c = append(c, x)
			}
		}
	}
	switch h := h.(type) {
	case *KeyGroupsStateHandle:
		add(h.Delegate)
	case *KeyGroupsSavepointStateHandle:
		add(h.Delegate)
	case *OperatorStreamStateHandle:
		add(h.Delegate)
	case *FileMergingOperatorStreamStateHandle:
		add(h.Delegate)
	case *IncrementalRemoteKeyedStateHandle:
		add(h.MetaStateHandle)
		for _, l := range [][]HandleAndLocalPath{h.SharedState, h.PrivateState} {
			for _, f := range l {
				add(f.Handle)
			}
		}
	case *ChangelogStateBackendHandle:
		add(h.Materialized...)
		add(h.NonMaterialized...)
	case *ChangelogStateHandleStreamImpl:
		for _, x := range h.Handles {
			add(x.Handle)
		}
	case *InputChannelStateHandle:
		add(h.Delegate)
	case *ResultSubpartitionStateHandle:
		add(h.Delegate)
	case *MergedInputChannelStateHandle:
		add(h.Delegate)
	case *MergedResultSubpartitionStateHandle:
		add(h.Delegate)
	}
	return c
}

// handles returns the subtask's top-level handles: the four slots, the
// channel state and vfskit's handles (nil ones included).
func (st *Subtask) handles() []Handle {
	var hs []Handle
	if s := st.State; s != nil {
		hs = append(s.slots(), s.InputChannelState...)
		hs = append(hs, s.OutputChannelState...)
	}
	return append(hs, st.Handles...)
}

// Walk calls fn for every non-nil handle of the metadata, depth first, in file
// order: per operator its coordinator state (st nil), then per subtask the
// managed and raw operator state, the managed and raw keyed state, the input
// and output channel state and vfskit's handles, each followed by the handles
// it holds.
func (m *Metadata) Walk(fn func(op *Operator, st *Subtask, h Handle)) {
	var visit func(op *Operator, st *Subtask, h Handle, depth int)
	visit = func(op *Operator, st *Subtask, h Handle, depth int) {
		if isNil(h) || depth > maxNesting+1 {
			return
		}
		fn(op, st, h)
		for _, c := range Children(h) {
			visit(op, st, c, depth+1)
		}
	}
	for i := range m.Operators {
		op := &m.Operators[i]
		if op.CoordinatorState != nil {
			visit(op, nil, op.CoordinatorState, 0)
		}
		for j := range op.Subtasks {
			st := &op.Subtasks[j]
			for _, h := range st.handles() {
				visit(op, st, h, 0)
			}
		}
	}
}

// Handles returns every non-nil handle of the metadata, nested ones included,
// in Walk's order.
func (m *Metadata) Handles() []Handle {
	var hs []Handle
	m.Walk(func(_ *Operator, _ *Subtask, h Handle) { hs = append(hs, h) })
	return hs
}

// StateSize is the size of the state of every subtask (nested handles are
// counted once, through their parents), as Flink's getStateSize adds it up.
func (m *Metadata) StateSize() int64 {
	var n int64
	for _, op := range m.Operators {
		for _, st := range op.Subtasks {
			for _, h := range st.handles() {
				n += sizeOf(h)
			}
		}
	}
	return n
}

// InlineBytes is the number of state bytes held in the metadata itself
// (byte-stream handles, coordinator state included, and in-memory
// changelogs).
func (m *Metadata) InlineBytes() int64 {
	var n int64
	m.Walk(func(_ *Operator, _ *Subtask, h Handle) {
		switch h := unwrap(h).(type) {
		case *ByteStreamStateHandle:
			n += int64(len(h.Data))
		case *InMemoryChangelogStateHandle:
			n += h.StateSize()
		}
	})
	return n
}

// Reference says how a file is referenced.
type Reference string

const (
	// Relative: by a path relative to the checkpoint's exclusive directory
	// (the directory holding _metadata).
	Relative Reference = "relative"
	// Absolute: by a full path or URI.
	Absolute Reference = "absolute"
)

// FileRef is one file a checkpoint references.
type FileRef struct {
	// Path is the path as recorded: relative to the checkpoint directory for
	// Relative references, a full path (Flink's Path.toString()) otherwise.
	Path      string
	Reference Reference
	// Size is the number of bytes the state takes in the file (for a segment,
	// the segment's length).
	Size int64
	// Offset is where a segment of a merged file starts (0 for whole files);
	// Segment marks such references.
	Offset  int64
	Segment bool
	// Handle is the handle holding the reference.
	Handle Handle
}

// Files returns every file reference of the metadata in Walk's order
// (inline state is not a file: a byte-stream handle's name is not listed).
// A file referenced twice is listed twice.
func (m *Metadata) Files() []FileRef {
	var fs []FileRef
	m.Walk(func(_ *Operator, _ *Subtask, h Handle) {
		switch x := unwrap(h).(type) {
		case *FileStateHandle:
			fs = append(fs, FileRef{Path: x.Path, Reference: Absolute, Size: x.Size, Handle: h})
		case *RelativeFileStateHandle:
			fs = append(fs, FileRef{Path: x.RelativePath, Reference: Relative, Size: x.Size, Handle: h})
		case *SegmentFileStateHandle:
			fs = append(fs, FileRef{Path: x.Path, Reference: Absolute, Size: x.Size, Offset: x.StartPos, Segment: true, Handle: h})
		}
	})
	return fs
}

// Resolve returns the file's path: an absolute reference parsed as a
// vfs.Path, a relative one resolved against dir, the checkpoint's exclusive
// directory (the directory the _metadata was read from).
func (f FileRef) Resolve(dir vfs.Path) (vfs.Path, error) {
	if f.Reference == Relative {
		return dir.Resolve(f.Path)
	}
	return vfs.ParsePath(f.Path) // exact: Flink writes no backslash, vfskit writes Path.String()
}

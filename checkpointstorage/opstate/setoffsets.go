package opstate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// KafkaOffset sets where a Kafka partition resumes: the starting offset of
// its split (the next record read; or one of the Kafka…Offset markers).
type KafkaOffset struct {
	Topic     string
	Partition int32
	Offset    int64
}

// SplitPosition sets where a split resumes by its id: a number sequence
// split's next number, or the offset a file split's reader resumes at (with
// no records to skip after it).
type SplitPosition struct {
	ID       string
	Position int64
}

// Changes is what SetOffsets changes.
type Changes struct {
	// Offsets are Kafka partitions' new starting offsets; the topic is
	// named as it is after MapTopics.
	Offsets []KafkaOffset
	// Splits are sequence and file splits' new positions.
	Splits []SplitPosition
	// MapTopics renames Kafka topics (old name to new) in the readers'
	// splits and in the enumerator's state.
	MapTopics map[string]string
}

// Rewritten is what SetOffsets did.
type Rewritten struct {
	Src, Dst vfs.Path
	// Positions are the source positions at Dst, read back.
	Positions []Position
	// Entries is the number of split entries and enumerator states
	// rewritten.
	Entries int
	// Files is the number of state files rewritten (inline state is
	// rewritten in the metadata).
	Files int
}

// ErrNotRewritable is wrapped by the errors of what SetOffsets cannot
// rewrite exactly.
var ErrNotRewritable = fmt.Errorf("cannot be rewritten exactly: %w", fs.ErrInvalid)

// SetOffsets writes a copy of the savepoint or checkpoint directory src at
// dst (which must not exist or be empty) in which the positions of the
// FLIP-27 source splits are changed as ch says, and every other byte is as
// it was: the copy is made as checkpointstorage.Relocate makes it, then each
// changed split entry is re-encoded in its operator state stream (the
// offsets of the entries after it move with it), inline state in the
// _metadata and state files in the copy are rewritten, and the _metadata is
// encoded again in its format and version. The enumerator's state follows:
// a Kafka enumerator's topics are renamed with MapTopics and its version 3
// splits take the new offsets, a sequence enumerator's unassigned splits the
// new positions.
//
// Before anything is written it refuses (an error wrapping
// ErrNotRewritable): a change that matches no split; a split it would
// change whose bytes no decoder reads exactly; a state stream it would
// change that is held in a file outside src, in a segment of a merged file,
// or in a file that another handle references too; an enumerator it would
// change that it cannot decode; and a state file it cannot read. At the end
// dst is verified (checkpointstorage.VerifyCheckpoint) and its positions read
// back and compared with what was asked, and every entry not changed with
// src's; when anything fails after the copy started, what was written at dst
// is deleted. src is never modified.
func SetOffsets(ctx context.Context, src, dst vfs.Path, ch Changes, opts ...Option) (*Rewritten, error) {
	o := buildOptions(opts)
	srcState, srcMD, err := Load(ctx, src.String(), opts...)
	if err != nil {
		return nil, err
	}
	if us := srcState.Unreadable(); len(us) > 0 {
		return nil, fmt.Errorf("opstate: set offsets: the state of operator %s subtask %d cannot be read: %w", us[0].Operator.ID, us[0].Subtask, us[0].Err)
	}
	if _, err := plan(ctx, &o, srcMD, srcState.Dir, ch, nil); err != nil {
		return nil, err
	}
	storage := checkpointstorage.WithRegistry(o.registry)
	rel, err := checkpointstorage.Relocate(ctx, src, dst, storage)
	if err != nil {
		return nil, err
	}
	dstFS, err := o.registry.GetPath(ctx, rel.Dst)
	if err != nil {
		return nil, err
	}
	r := &Rewritten{Src: rel.Src, Dst: rel.Dst}
	if err := rewrite(ctx, &o, dstFS, rel, ch, srcState, r, storage); err != nil {
		if derr := dstFS.Delete(context.WithoutCancel(ctx), rel.Dst, true); derr != nil {
			return nil, fmt.Errorf("%w (and deleting %s failed: %v)", err, rel.Dst, derr)
		}
		return nil, err
	}
	return r, nil
}

// rewrite changes the copy at rel.Dst and checks it.
func rewrite(ctx context.Context, o *options, fsys vfs.FileSystem, rel *checkpointstorage.Relocation, ch Changes, srcState *State, r *Rewritten, storage checkpointstorage.Option) error {
	if len(rel.Metadata) != 1 {
		return fmt.Errorf("opstate: set offsets: %s holds %d checkpoints or savepoints, expected one: %w", rel.Src, len(rel.Metadata), fs.ErrInvalid)
	}
	mdPath := rel.Metadata[0]
	md, loc, err := checkpointstorage.LoadCheckpoint(ctx, mdPath.String(), storage)
	if err != nil {
		return err
	}
	files, err := plan(ctx, o, md, loc.CheckpointDir(), ch, r)
	if err != nil {
		return err
	}
	for p, data := range files {
		if _, in := p.Rel(rel.Dst); !in {
			return vfs.NewPathError("set offsets", p, fmt.Errorf("a state file outside the copy: %w", ErrNotRewritable))
		}
		if err := vfs.WriteFile(ctx, fsys, p, data, vfs.Overwrite); err != nil {
			return err
		}
		r.Files++
	}
	data, err := metadata.Encode(md)
	if err != nil {
		return err
	}
	if err := vfs.WriteFile(ctx, fsys, mdPath, data, vfs.Overwrite); err != nil {
		return err
	}
	v, err := checkpointstorage.VerifyCheckpoint(ctx, loc.CheckpointDir(), storage)
	if err != nil {
		return err
	}
	if !v.OK() {
		return fmt.Errorf("opstate: set offsets: %s does not verify: %s %s", rel.Dst, v.Problems()[0].Path, v.Problems()[0].Problem())
	}
	got, _, err := Load(ctx, loc.CheckpointDir().String(), WithRegistry(o.registry))
	if err != nil {
		return err
	}
	r.Positions = got.Positions()
	return check(srcState, got, ch)
}

// plan applies ch to md (the metadata of the checkpoint in dir): entries
// and enumerator states re-encoded, inline streams replaced, offsets moved.
// It returns the new bytes of each state file to write. r, when not nil,
// counts what changed.
func plan(ctx context.Context, o *options, md *metadata.Metadata, dir vfs.Path, ch Changes, r *Rewritten) (map[vfs.Path][]byte, error) {
	if md.Format != metadata.FormatFlink {
		return nil, fmt.Errorf("opstate: set offsets: a checkpoint in vfskit's format holds no Flink operator state: %w", ErrNotRewritable)
	}
	for _, k := range ch.Offsets {
		if k.Offset < 0 && k.Offset != KafkaEarliestOffset && k.Offset != KafkaLatestOffset && k.Offset != KafkaCommittedOffset {
			return nil, fmt.Errorf("opstate: set offsets: offset %d for %s-%d: expected a number ≥ 0, or -1 (latest), -2 (earliest), -3 (committed): %w", k.Offset, k.Topic, k.Partition, fs.ErrInvalid)
		}
	}
	used := make([]bool, len(ch.Offsets)+len(ch.Splits))
	// apply returns the split changed, nil when ch does not touch s.
	apply := func(s Split) (Split, error) {
		var changed bool
		switch s := s.(type) {
		case *KafkaSplit:
			n := *s
			if to, ok := ch.MapTopics[s.Topic]; ok && to != s.Topic {
				n.Topic, changed = to, true
			}
			for i, k := range ch.Offsets {
				if k.Topic == n.Topic && k.Partition == n.Partition {
					used[i] = true
					if n.StartingOffset != k.Offset {
						n.StartingOffset, changed = k.Offset, true
					}
				}
			}
			if changed {
				return &n, nil
			}
		case *SequenceSplit:
			for i, p := range ch.Splits {
				if p.ID == s.ID {
					used[len(ch.Offsets)+i] = true
					if p.Position > s.To {
						return nil, fmt.Errorf("sequence split %q: position %d is after its last number %d: %w", s.ID, p.Position, s.To, fs.ErrInvalid)
					}
					if p.Position != s.From {
						n := *s
						n.From = p.Position
						return &n, nil
					}
				}
			}
		case *FileSplit:
			for i, p := range ch.Splits {
				if p.ID == s.ID {
					used[len(ch.Offsets)+i] = true
					if p.Position < 0 {
						return nil, fmt.Errorf("file split %q: position %d: %w", s.ID, p.Position, fs.ErrInvalid)
					}
					n := *s
					n.ReaderPosition = &FilePosition{Offset: p.Position}
					if s.ReaderPosition == nil || *s.ReaderPosition != *n.ReaderPosition {
						return &n, nil
					}
				}
			}
		}
		return nil, nil
	}
	refs := map[string]int{}
	for _, f := range md.Files() {
		refs[string(f.Reference)+":"+f.Path]++
	}
	files := map[vfs.Path][]byte{}
	for i := range md.Operators {
		mop := &md.Operators[i]
		if mop.CoordinatorState != nil {
			c := DecodeCoordinator(mop.CoordinatorState.Data)
			changed, err := applyEnumerator(c, ch, apply)
			if err != nil {
				return nil, fmt.Errorf("opstate: set offsets: operator %s: coordinator state: %w", mop.ID, err)
			}
			if changed {
				b, err := EncodeCoordinator(c)
				if err != nil {
					return nil, err
				}
				mop.CoordinatorState.Data = b
				if r != nil {
					r.Entries++
				}
			}
		}
		for j := range mop.Subtasks {
			sub := &mop.Subtasks[j]
			if sub.State == nil {
				continue
			}
			h := sub.State.ManagedOperatorState
			if !holdsReaderState(h) {
				continue
			}
			sh, err := o.readHandle(ctx, h, dir)
			if err == nil && sh != nil {
				err = sh.cut()
			}
			if err != nil {
				return nil, fmt.Errorf("opstate: set offsets: operator %s subtask %d: %w", mop.ID, sub.Index, err)
			}
			repl := map[int64][]byte{}
			for k, ns := range sh.states {
				if ns.Name != SourceReaderStateName {
					continue
				}
				for _, e := range sh.entries[k] {
					if e.Reader == nil || e.Reader.Split == nil {
						continue
					}
					n, err := apply(e.Reader.Split)
					if err != nil {
						return nil, fmt.Errorf("opstate: set offsets: operator %s subtask %d: %w", mop.ID, sub.Index, err)
					}
					if n == nil {
						continue
					}
					p, v, err := EncodeSplit(n)
					if err != nil {
						return nil, err
					}
					if v != e.Reader.Version {
						return nil, fmt.Errorf("opstate: set offsets: split %s: serializer version %d, expected %d: %w", n.SplitID(), v, e.Reader.Version, ErrNotRewritable)
					}
					b, err := EncodeReaderEntry(v, p)
					if err != nil {
						return nil, err
					}
					repl[e.Start] = b
				}
			}
			if len(repl) == 0 {
				continue
			}
			if r != nil {
				r.Entries += len(repl)
			}
			stream, offsets := sh.splice(repl)
			if err := setStream(h, stream, offsets, dir, refs, files); err != nil {
				return nil, fmt.Errorf("opstate: set offsets: operator %s subtask %d: %w", mop.ID, sub.Index, err)
			}
		}
	}
	var missing []string
	for i, u := range used {
		if u {
			continue
		}
		if i < len(ch.Offsets) {
			k := ch.Offsets[i]
			missing = append(missing, fmt.Sprintf("kafka %s partition %d", k.Topic, k.Partition))
		} else {
			missing = append(missing, fmt.Sprintf("split %q", ch.Splits[i-len(ch.Offsets)].ID))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("opstate: set offsets: no split of the savepoint is %s: %w", strings.Join(missing, ", "), fs.ErrNotExist)
	}
	return files, nil
}

// holdsReaderState reports whether h is operator state with a
// "SourceReaderState".
func holdsReaderState(h metadata.Handle) bool {
	var states []metadata.NamedState
	switch x := h.(type) {
	case *metadata.OperatorStreamStateHandle:
		if x != nil {
			states = x.States
		}
	case *metadata.FileMergingOperatorStreamStateHandle:
		if x != nil {
			states = x.States
		}
	}
	for _, s := range states {
		if s.Name == SourceReaderStateName {
			return true
		}
	}
	return false
}

// applyEnumerator changes a source coordinator's enumerator state as ch
// says; it reports whether anything changed.
func applyEnumerator(c *CoordinatorState, ch Changes, apply func(Split) (Split, error)) (bool, error) {
	if !c.Source {
		return false, nil
	}
	switch e := c.Enumerator.(type) {
	case nil:
		if len(ch.MapTopics) > 0 {
			return false, fmt.Errorf("an enumerator state of serializer version %d that no decoder reads, where topics are to be renamed: %w", c.EnumVersion, ErrNotRewritable)
		}
		return false, nil
	case *KafkaEnumerator:
		changed := false
		for i := range e.Partitions {
			p := &e.Partitions[i]
			if p.Split != nil {
				n, err := apply(p.Split)
				if err != nil {
					return false, err
				}
				if n != nil {
					p.Split = n.(*KafkaSplit)
					p.Topic = p.Split.Topic
					changed = true
				}
			} else if to, ok := ch.MapTopics[p.Topic]; ok && to != p.Topic {
				p.Topic, changed = to, true
			}
		}
		for _, a := range e.Readers {
			for k, s := range a.Splits {
				n, err := apply(s)
				if err != nil {
					return false, err
				}
				if n != nil {
					a.Splits[k] = n.(*KafkaSplit)
					changed = true
				}
			}
		}
		return changed, nil
	case *SequenceEnumerator:
		changed := false
		for k, s := range e.Splits {
			n, err := apply(s)
			if err != nil {
				return false, err
			}
			if n != nil {
				e.Splits[k] = n.(*SequenceSplit)
				changed = true
			}
		}
		return changed, nil
	}
	return false, nil
}

// splice returns the stream with the entries starting at the keys of repl
// replaced, and each state's new offsets.
func (sh *streamHandle) splice(repl map[int64][]byte) ([]byte, [][]int64) {
	type at struct {
		e     *Entry
		state int
		idx   int
	}
	var all []at
	for i := range sh.states {
		for j, e := range sh.entries[i] {
			all = append(all, at{e, i, j})
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].e.Start < all[b].e.Start })
	offsets := make([][]int64, len(sh.states))
	for i, ns := range sh.states {
		offsets[i] = make([]int64, len(ns.Offsets))
	}
	var out bytes.Buffer
	if len(all) == 0 {
		return sh.stream, offsets
	}
	out.Write(sh.stream[:all[0].e.Start])
	for _, a := range all {
		offsets[a.state][a.idx] = int64(out.Len())
		if b, ok := repl[a.e.Start]; ok && len(a.e.Bytes) > 0 {
			out.Write(b)
		} else {
			out.Write(a.e.Bytes)
		}
	}
	return out.Bytes(), offsets
}

// setStream puts a rewritten operator state stream in place of h's: inline
// in the metadata, or as the new content of its file (in files, by path).
func setStream(h metadata.Handle, stream []byte, offsets [][]int64, dir vfs.Path, refs map[string]int, files map[vfs.Path][]byte) error {
	x, ok := h.(*metadata.OperatorStreamStateHandle)
	if !ok {
		return fmt.Errorf("operator state in a %s (file merging): %w", metadata.KindName(h), ErrNotRewritable)
	}
	switch d := x.Delegate.(type) {
	case *metadata.ByteStreamStateHandle:
		d.Data = stream
	case *metadata.RelativeFileStateHandle:
		if refs[string(metadata.Relative)+":"+d.RelativePath] != 1 {
			return fmt.Errorf("state file %s is referenced by other handles too: %w", d.RelativePath, ErrNotRewritable)
		}
		p, err := dir.Resolve(d.RelativePath)
		if err != nil {
			return err
		}
		files[p] = stream
		d.Size = int64(len(stream))
	case *metadata.FileStateHandle:
		if refs[string(metadata.Absolute)+":"+d.Path] != 1 {
			return fmt.Errorf("state file %s is referenced by other handles too: %w", d.Path, ErrNotRewritable)
		}
		p, err := vfs.ParsePath(d.Path)
		if err != nil {
			return err
		}
		files[p] = stream
		d.Size = int64(len(stream))
	default:
		return fmt.Errorf("operator state stream in a %s: %w", metadata.KindName(x.Delegate), ErrNotRewritable)
	}
	for i := range x.States {
		x.States[i].Offsets = offsets[i]
	}
	return nil
}

// check compares the state written with the state read from src: each
// split position asked for is there, every entry not asked to change is
// byte for byte src's, and no entry was added or lost.
func check(src, got *State, ch Changes) error {
	want := map[string]int64{}
	for _, k := range ch.Offsets {
		want["kafka:"+k.Topic+":"+strconv.Itoa(int(k.Partition))] = k.Offset
	}
	for _, p := range ch.Splits {
		want["split:"+p.ID] = p.Position
	}
	for _, p := range got.Positions() {
		var key string
		var at int64
		switch p.Kind {
		case "kafka":
			key, at = "kafka:"+p.Topic+":"+strconv.Itoa(int(p.Partition)), p.Offset
		case "sequence", "file":
			key, at = "split:"+p.Split, p.Position
		default:
			continue
		}
		if w, ok := want[key]; ok && w != at {
			return fmt.Errorf("opstate: set offsets: read back, %s is at %d, not %d as set", key, at, w)
		}
	}
	if len(src.Operators) != len(got.Operators) {
		return errors.New("opstate: set offsets: read back, the operators differ")
	}
	for i, so := range src.Operators {
		gotOp := got.Operators[i]
		if len(so.States) != len(gotOp.States) || len(so.RawStates) != len(gotOp.RawStates) {
			return fmt.Errorf("opstate: set offsets: read back, operator %s has other states", so.ID)
		}
		for k, ns := range append(append([]*NamedState{}, so.States...), so.RawStates...) {
			gs := append(append([]*NamedState{}, gotOp.States...), gotOp.RawStates...)[k]
			if gs.Name != ns.Name || gs.Mode != ns.Mode || len(gs.Subtasks) != len(ns.Subtasks) {
				return fmt.Errorf("opstate: set offsets: read back, operator %s state %q differs", so.ID, ns.Name)
			}
			for s, sub := range ns.Subtasks {
				gsub := gs.Subtasks[s]
				if gsub.Index != sub.Index || len(gsub.Entries) != len(sub.Entries) {
					return fmt.Errorf("opstate: set offsets: read back, operator %s state %q subtask %d differs", so.ID, ns.Name, sub.Index)
				}
				for e, en := range sub.Entries {
					if ns.Name == SourceReaderStateName && en.Reader != nil && en.Reader.Split != nil {
						continue // compared above
					}
					if !bytes.Equal(en.Bytes, gsub.Entries[e].Bytes) {
						return fmt.Errorf("opstate: set offsets: read back, operator %s state %q subtask %d entry %d changed", so.ID, ns.Name, sub.Index, e)
					}
				}
			}
		}
	}
	return nil
}

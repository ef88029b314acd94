package demo

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/vfskit/vfskit/vfs"
)

// SinkOperatorID is the file sink; its state is each subtask's sinkState.
const SinkOperatorID = "word-sink"

// partSize is the size at which a subtask's part file is rolled: closed for
// commit (committed when the next checkpoint completes) and a new one begun.
const partSize = 128 << 10

// sink is one subtask's exactly-once file sink, Flink's FileSink with a row
// format: for every record it writes the line "word count" (the word's count
// after the record) to a rolling part file, part-<subtask>-<n>, through the
// recoverable writer. At a checkpoint it persists the part in progress and
// hands the parts closed since the last checkpoint to the checkpoint, whose
// completion commits them; a restored job commits the parts of its checkpoint
// again (CommitAfterRecovery: done once) and continues the part in progress
// from exactly its persisted bytes, so every line is in the output once.
type sink struct {
	w       vfs.RecoverableWriter
	dir     vfs.Path
	subtask int
	next    int // the number of the next part
	out     vfs.RecoverableOutputStream
	buf     *bufio.Writer
	pending []vfs.CommitRecoverable // closed since the last checkpoint
	err     error
	line    []byte
}

// sinkState is what a checkpoint holds of a sink.
type sinkState struct {
	next    int
	resume  vfs.ResumeRecoverable // the part in progress; nil for none
	pending []vfs.CommitRecoverable
}

// marshal encodes s: the next part number, the resume token and the commit
// tokens, each with its length.
func (s sinkState) marshal() []byte {
	b := binary.AppendUvarint(nil, uint64(s.next))
	b = binary.AppendUvarint(b, uint64(len(s.resume)))
	b = append(b, s.resume...)
	b = binary.AppendUvarint(b, uint64(len(s.pending)))
	for _, c := range s.pending {
		b = binary.AppendUvarint(b, uint64(len(c)))
		b = append(b, c...)
	}
	return b
}

func unmarshalSinkState(b []byte) (sinkState, error) {
	var s sinkState
	num := func() (uint64, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, errors.New("sink state: malformed")
		}
		b = b[k:]
		return n, nil
	}
	bytes := func() ([]byte, error) {
		n, err := num()
		if err != nil || n > uint64(len(b)) {
			return nil, errors.New("sink state: malformed")
		}
		v := b[:n:n]
		b = b[n:]
		return v, nil
	}
	next, err := num()
	if err != nil {
		return s, err
	}
	s.next = int(next)
	if s.resume, err = bytes(); err != nil {
		return s, err
	}
	if len(s.resume) == 0 {
		s.resume = nil
	}
	n, err := num()
	if err != nil || n > uint64(len(b)) {
		return s, errors.New("sink state: malformed")
	}
	for range n {
		c, err := bytes()
		if err != nil {
			return s, err
		}
		s.pending = append(s.pending, c)
	}
	if len(b) != 0 {
		return s, errors.New("sink state: trailing bytes")
	}
	return s, nil
}

// write appends the line of one record; a failure is kept for the next
// snapshot.
func (s *sink) write(ctx context.Context, word string, count int64) {
	if s.err != nil {
		return
	}
	if s.out == nil {
		p := s.dir.Join(fmt.Sprintf("part-%d-%d", s.subtask, s.next))
		out, err := s.w.Open(ctx, p)
		if err != nil {
			s.err = err
			return
		}
		s.next++
		s.start(out)
	}
	s.line = append(strconv.AppendInt(append(append(s.line[:0], word...), ' '), count, 10), '\n')
	if _, err := s.buf.Write(s.line); err != nil {
		s.err = err
		return
	}
	if s.out.Pos()+int64(s.buf.Buffered()) >= partSize {
		s.err = s.roll(ctx)
	}
}

func (s *sink) start(out vfs.RecoverableOutputStream) {
	s.out = out
	if s.buf == nil {
		s.buf = bufio.NewWriterSize(out, 16<<10)
	} else {
		s.buf.Reset(out)
	}
}

// roll closes the part in progress for commit.
func (s *sink) roll(ctx context.Context) error {
	if err := s.buf.Flush(); err != nil {
		return err
	}
	c, err := s.out.CloseForCommit(ctx)
	if err != nil {
		return err
	}
	s.out = nil
	s.pending = append(s.pending, c.Recoverable())
	return nil
}

// snapshot persists the part in progress (or, at the end of the input, closes
// it for commit) and returns the state for the checkpoint; the parts closed
// since the last checkpoint now belong to it.
func (s *sink) snapshot(ctx context.Context, final bool) (sinkState, error) {
	if s.err != nil {
		return sinkState{}, fmt.Errorf("sink of subtask %d: %w", s.subtask, s.err)
	}
	st := sinkState{next: s.next}
	if s.out != nil {
		if final {
			if err := s.roll(ctx); err != nil {
				return sinkState{}, err
			}
		} else {
			if err := s.buf.Flush(); err != nil {
				return sinkState{}, err
			}
			tok, err := s.out.Persist(ctx)
			if err != nil {
				return sinkState{}, err
			}
			st.resume = tok
		}
	}
	st.pending, s.pending = s.pending, nil
	return st, nil
}

// restoreSink commits the parts of a restored checkpoint (done once, whether
// or not the commit happened before the crash) and continues its part in
// progress.
func restoreSink(ctx context.Context, w vfs.RecoverableWriter, dir vfs.Path, subtask int, st sinkState) (*sink, error) {
	if err := commitAll(ctx, w, st.pending, true); err != nil {
		return nil, err
	}
	s := &sink{w: w, dir: dir, subtask: subtask, next: st.next}
	if st.resume != nil {
		out, err := w.Recover(ctx, st.resume)
		if err != nil {
			return nil, fmt.Errorf("sink of subtask %d: recovering its part in progress: %w", subtask, err)
		}
		s.start(out)
	}
	return s, nil
}

// commitAll commits the parts of a completed checkpoint.
func commitAll(ctx context.Context, w vfs.RecoverableWriter, toks []vfs.CommitRecoverable, recovery bool) error {
	for _, tok := range toks {
		c, err := w.RecoverForCommit(ctx, tok)
		if err == nil {
			if recovery {
				err = c.CommitAfterRecovery(ctx)
			} else {
				err = c.Commit(ctx)
			}
		}
		if err != nil {
			return fmt.Errorf("demo: committing a part file: %w", err)
		}
	}
	return nil
}

// output is where the job writes its results: part files under Dir, on the
// file system it checkpoints to.
type output struct {
	w   vfs.RecoverableWriter
	dir vfs.Path
}

// newOutput finds the recoverable writer of the checkpoint directory's file
// system; a file system without one gets no output (nil), said in the report.
func (j *job) newOutput(ctx context.Context) (*output, error) {
	dir := j.cfg.CheckpointDir.Join("output", j.cfg.JobID.String())
	var fsys vfs.FileSystem
	var err error
	if j.cfg.Registry != nil {
		fsys, err = j.cfg.Registry.Get(ctx, dir.String())
	} else {
		fsys, err = vfs.Get(ctx, dir.String())
	}
	if err != nil {
		return nil, err
	}
	w, err := vfs.NewRecoverableWriter(fsys)
	if errors.Is(err, errors.ErrUnsupported) {
		j.report.Output.Skipped = err.Error()
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	j.report.Output.Dir = dir
	j.report.Output.fsys = fsys
	return &output{w: w, dir: dir}, nil
}

// sinks returns n new sinks (nil without output).
func (o *output) sinks(n int) []*sink {
	if o == nil {
		return nil
	}
	s := make([]*sink, n)
	for i := range s {
		s[i] = &sink{w: o.w, dir: o.dir, subtask: i}
	}
	return s
}

// restore returns the sinks of a restored job from their checkpointed states
// (by subtask; none: new sinks).
func (o *output) restore(ctx context.Context, states [][]byte, n int) ([]*sink, error) {
	if o == nil {
		return nil, nil
	}
	if len(states) > n {
		return nil, fmt.Errorf("demo: the checkpoint has sink state for %d subtasks, the job runs %d", len(states), n)
	}
	sinks := o.sinks(n)
	for i, b := range states {
		if b == nil {
			continue
		}
		st, err := unmarshalSinkState(b)
		if err != nil {
			return nil, fmt.Errorf("demo: subtask %d: %w", i, err)
		}
		if sinks[i], err = restoreSink(ctx, o.w, o.dir, i, st); err != nil {
			return nil, err
		}
	}
	return sinks, nil
}

package checkpointstorage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/google/uuid"
)

// ErrStateTooLarge is wrapped by the error of a memory state stream whose state
// exceeds its maximum size.
var ErrStateTooLarge = errors.New("state too large")

// MemCheckpointStreamFactory produces streams that keep state in memory and
// return it inline in a *ByteStreamStateHandle (Flink's
// MemCheckpointStreamFactory). It never touches storage.
type MemCheckpointStreamFactory struct {
	maxStateSize int
}

// NewMemCheckpointStreamFactory returns a factory whose streams accept at most
// maxStateSize bytes (0 means DefaultMaxStateSize).
func NewMemCheckpointStreamFactory(maxStateSize int) *MemCheckpointStreamFactory {
	if maxStateSize == 0 {
		maxStateSize = DefaultMaxStateSize
	}
	return &MemCheckpointStreamFactory{maxStateSize: maxStateSize}
}

// MaxStateSize returns the per-stream limit in bytes.
func (f *MemCheckpointStreamFactory) MaxStateSize() int { return f.maxStateSize }

// CreateCheckpointStateOutputStream returns a new in-memory stream; scope does not
// matter.
func (f *MemCheckpointStreamFactory) CreateCheckpointStateOutputStream(context.Context, StateScope) (CheckpointStateOutputStream, error) {
	return NewMemoryCheckpointOutputStream(f.maxStateSize), nil
}

// String returns Flink's description.
func (f *MemCheckpointStreamFactory) String() string { return "In-Memory Stream Factory" }

// checkMemStateSize is Flink's MemCheckpointStreamFactory.checkSize.
func checkMemStateSize(size, maxSize int) error {
	if size > maxSize {
		return fmt.Errorf("Size of the state is larger than the maximum permitted memory-backed state. Size=%d, maxSize=%d. Consider using a different checkpoint storage, like the FileSystemCheckpointStorage.: %w", size, maxSize, ErrStateTooLarge)
	}
	return nil
}

// MemoryCheckpointOutputStream collects state in memory (Flink's
// MemoryCheckpointOutputStream). The size limit is checked when the handle is
// taken: exactly maxSize bytes fit, one more fails with Flink's message.
type MemoryCheckpointOutputStream struct {
	buf     bytes.Buffer
	maxSize int
	closed  bool
}

// NewMemoryCheckpointOutputStream returns a stream that accepts at most maxSize
// bytes.
func NewMemoryCheckpointOutputStream(maxSize int) *MemoryCheckpointOutputStream {
	return &MemoryCheckpointOutputStream{maxSize: maxSize}
}

// Write appends p.
func (s *MemoryCheckpointOutputStream) Write(p []byte) (int, error) {
	if s.closed {
		return 0, fmt.Errorf("checkpointstorage: write to a closed memory state stream: %w", fs.ErrClosed)
	}
	return s.buf.Write(p)
}

// Pos is the number of bytes written.
func (s *MemoryCheckpointOutputStream) Pos() int64 { return int64(s.buf.Len()) }

// Flush does nothing.
func (s *MemoryCheckpointOutputStream) Flush() error { return nil }

// Sync does nothing.
func (s *MemoryCheckpointOutputStream) Sync() error { return nil }

// Close discards the state.
func (s *MemoryCheckpointOutputStream) Close() error {
	s.closed = true
	s.buf = bytes.Buffer{}
	return nil
}

// CloseAndGetHandle returns the state in a *ByteStreamStateHandle named with a
// random UUID, or nil, nil when nothing was written. State larger than the
// maximum fails with Flink's "Size of the state is larger than the maximum
// permitted memory-backed state" message (errors.Is ErrStateTooLarge).
func (s *MemoryCheckpointOutputStream) CloseAndGetHandle(context.Context) (StreamStateHandle, error) {
	b, err := s.CloseAndGetBytes()
	if err != nil || b == nil {
		return nil, err
	}
	return &ByteStreamStateHandle{Name: uuid.NewString(), Data: b}, nil
}

// CloseAndGetBytes closes the stream and returns the bytes written (nil when
// none), checking the size limit.
func (s *MemoryCheckpointOutputStream) CloseAndGetBytes() ([]byte, error) {
	if s.closed {
		return nil, fmt.Errorf("checkpointstorage: stream has already been closed: %w", fs.ErrClosed)
	}
	defer s.Close()
	if s.buf.Len() == 0 {
		return nil, nil
	}
	if err := checkMemStateSize(s.buf.Len(), s.maxSize); err != nil {
		return nil, err
	}
	return bytes.Clone(s.buf.Bytes()), nil
}

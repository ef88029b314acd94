package checkpointstorage

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/google/uuid"
	"github.com/vfskit/vfskit/vfs"
)

// FsCheckpointStreamFactory produces streams that write state to files with
// random (UUID) names in a directory, or inline when the state is small (Flink's
// FsCheckpointStreamFactory).
//
// Like Flink's, it never checks or creates its directories: the coordinator
// creates the checkpoint directory once, and vfs's Create makes missing parents.
// So a state stream costs no HEAD, LIST or mkdir request on an object store.
type FsCheckpointStreamFactory struct {
	fsys               vfs.FileSystem
	checkpointDir      vfs.Path
	sharedDir          vfs.Path
	fileStateThreshold int
	writeBufferSize    int
	opts               options
	// unsynced makes state files skip the directory fsync at Close (see
	// vfs.DirSyncer): set for the factories of FsCheckpointStorage's
	// locations, whose CloseAndFinalizeCheckpoint syncs the state directories
	// before it publishes the metadata.
	unsynced bool
	// created, for the factory of a location, records the files its
	// streams publish in the checkpoint (see created).
	created *created
}

// NewFsCheckpointStreamFactory returns a factory writing exclusive state to
// checkpointDir and shared state to sharedDir, on fsys. fileStateThreshold must be
// in [0, MaxFileStateThreshold] and writeBufferSize ≥ 0; errors carry Flink's
// messages and wrap fs.ErrInvalid.
func NewFsCheckpointStreamFactory(fsys vfs.FileSystem, checkpointDir, sharedDir vfs.Path, fileStateThreshold, writeBufferSize int, opts ...Option) (*FsCheckpointStreamFactory, error) {
	if err := checkFsSizes(fileStateThreshold, writeBufferSize); err != nil {
		return nil, err
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if fsys == nil || checkpointDir.IsZero() || sharedDir.IsZero() {
		return nil, fmt.Errorf("checkpointstorage: a file system, a checkpoint directory and a shared state directory are required: %w", fs.ErrInvalid)
	}
	return newFsCheckpointStreamFactory(fsys, checkpointDir, sharedDir, fileStateThreshold, writeBufferSize, o), nil
}

func newFsCheckpointStreamFactory(fsys vfs.FileSystem, checkpointDir, sharedDir vfs.Path, fileStateThreshold, writeBufferSize int, o options) *FsCheckpointStreamFactory {
	return &FsCheckpointStreamFactory{
		fsys: fsys, checkpointDir: checkpointDir, sharedDir: sharedDir,
		fileStateThreshold: fileStateThreshold, writeBufferSize: writeBufferSize, opts: o,
	}
}

func checkFsSizes(fileStateThreshold, writeBufferSize int) error {
	switch {
	case fileStateThreshold < 0:
		return fmt.Errorf("The threshold for file state size must be zero or larger. (got %d): %w", fileStateThreshold, fs.ErrInvalid)
	case writeBufferSize < 0:
		return fmt.Errorf("The write buffer size must be zero or larger. (got %d): %w", writeBufferSize, fs.ErrInvalid)
	case fileStateThreshold > MaxFileStateThreshold:
		return fmt.Errorf("The threshold for file state size cannot be larger than %d (got %d): %w", MaxFileStateThreshold, fileStateThreshold, fs.ErrInvalid)
	}
	return nil
}

// CreateCheckpointStateOutputStream opens a stream into the checkpoint directory
// (Exclusive) or the shared state directory (Shared). It makes no request to the
// storage. Its buffer is max(writeBufferSize, fileStateThreshold) bytes.
// Exclusive state is recorded relative to the checkpoint directory unless entropy
// is injected into its path.
func (f *FsCheckpointStreamFactory) CreateCheckpointStateOutputStream(ctx context.Context, scope StateScope) (CheckpointStateOutputStream, error) {
	if scope != Exclusive && scope != Shared {
		return nil, fmt.Errorf("checkpointstorage: unknown state scope %d: %w", scope, fs.ErrInvalid)
	}
	target := f.checkpointDir
	if scope == Shared {
		target = f.sharedDir
	}
	entropy := f.opts.isEntropyInjecting(target)
	s := newFsCheckpointStateOutputStream(ctx, f.fsys, target, max(f.writeBufferSize, f.fileStateThreshold), f.fileStateThreshold, scope == Exclusive && !entropy, scope, f.opts)
	s.unsynced = f.unsynced && !entropy                       // entropy puts files where no SyncDir reaches
	if scope == Exclusive || f.sharedDir == f.checkpointDir { // a savepoint's state is all its own
		s.created = f.created
	}
	return s, nil
}

// String returns Flink's description.
func (f *FsCheckpointStreamFactory) String() string {
	return "File Stream Factory @ " + f.checkpointDir.Redacted()
}

// FsCheckpointStateOutputStream writes state to a buffer and, once the state
// outgrows fileStateThreshold, to a file with a random name (Flink's
// FsCheckpointStateOutputStream).
//
// State of at most fileStateThreshold bytes in total is returned inline, however
// it was split into Write calls (Flink's own boundary depends on the call sizes
// when the buffer equals the threshold; this one does not). The buffer grows as
// bytes arrive, up to max(writeBufferSize, fileStateThreshold): unlike Flink's,
// a small state does not cost a threshold-sized allocation. Larger state goes to
// <dir>/<uuid>, created NoOverwrite with up to 10 fresh names. Nothing is
// published until CloseAndGetHandle; Close aborts the file (vfs.Discard), so no
// delete request is needed and an existing file is never touched. A stream of
// an FsCheckpointStorage location (or its task-owned stream) on a
// vfs.DirSyncer creates the file with CreateUnsynced: its name becomes durable
// when the checkpoint is finalized, which syncs the state directories first.
type FsCheckpointStateOutputStream struct {
	ctx       context.Context
	fsys      vfs.FileSystem
	dir       vfs.Path
	buf       []byte // buffered bytes, at most bufSize; grows on demand
	bufSize   int
	threshold int
	relative  bool
	scope     StateScope
	opts      options
	out       vfs.OutputStream
	cancel    context.CancelFunc
	statePath vfs.Path
	relName   string
	closed    bool
	writeErr  error
	// unsynced creates the file with vfs.DirSyncer.CreateUnsynced where the
	// file system has it.
	unsynced bool
	// created, when set, records the file once it is published (a
	// location's stream: see created).
	created *created
}

// NewFsCheckpointStateOutputStream returns a stream writing into dir on fsys with
// a buffer of bufferSize bytes, inline up to localStateThreshold bytes.
// localStateThreshold must be ≥ 0, bufferSize at least localStateThreshold, fsys
// non-nil and dir non-zero; otherwise it fails with an error naming the value
// that errors.Is fs.ErrInvalid. relative makes the handle of a file a
// *RelativeFileStateHandle.
func NewFsCheckpointStateOutputStream(ctx context.Context, fsys vfs.FileSystem, dir vfs.Path, bufferSize, localStateThreshold int, relative bool, opts ...Option) (*FsCheckpointStateOutputStream, error) {
	switch {
	case localStateThreshold < 0:
		return nil, fmt.Errorf("checkpointstorage: The threshold for file state size must be zero or larger. (got %d): %w", localStateThreshold, fs.ErrInvalid)
	case bufferSize < localStateThreshold:
		return nil, fmt.Errorf("checkpointstorage: buffer size %d smaller than the state threshold %d: %w", bufferSize, localStateThreshold, fs.ErrInvalid)
	case fsys == nil || dir.IsZero():
		return nil, fmt.Errorf("checkpointstorage: a file system and a directory are required (got file system %v, directory %q): %w", fsys, dir.Redacted(), fs.ErrInvalid)
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return newFsCheckpointStateOutputStream(ctx, fsys, dir, bufferSize, localStateThreshold, relative, Exclusive, o), nil
}

func newFsCheckpointStateOutputStream(ctx context.Context, fsys vfs.FileSystem, dir vfs.Path, bufferSize, threshold int, relative bool, scope StateScope, o options) *FsCheckpointStateOutputStream {
	return &FsCheckpointStateOutputStream{
		ctx: ctx, fsys: fsys, dir: dir, bufSize: bufferSize,
		threshold: threshold, relative: relative, scope: scope, opts: o,
	}
}

func errStreamClosed() error {
	return fmt.Errorf("checkpointstorage: Stream has already been closed and discarded.: %w", fs.ErrClosed)
}

// Write buffers p, or streams it to the state file once the state no longer fits
// in the buffer.
func (s *FsCheckpointStateOutputStream) Write(p []byte) (int, error) {
	if s.closed {
		return 0, errStreamClosed()
	}
	if s.writeErr != nil {
		return 0, s.writeErr
	}
	if len(s.buf)+len(p) <= s.bufSize {
		s.buf = append(s.buf, p...)
		return len(p), nil
	}
	if err := s.flushToFile(); err != nil {
		return 0, err
	}
	if len(p) < s.bufSize {
		s.buf = append(s.buf, p...)
		return len(p), nil
	}
	n, err := s.out.Write(p)
	if err != nil {
		s.writeErr = err
	}
	return n, err
}

// flushToFile creates the state file if needed and writes the buffer to it.
func (s *FsCheckpointStateOutputStream) flushToFile() error {
	if s.closed {
		return errStreamClosed()
	}
	if s.out == nil {
		if err := s.createStream(); err != nil {
			return err
		}
	}
	if len(s.buf) > 0 {
		if _, err := s.out.Write(s.buf); err != nil {
			s.writeErr = err
			return err
		}
		s.buf = s.buf[:0]
	}
	return nil
}

func (s *FsCheckpointStateOutputStream) createStream() error {
	ctx, cancel := context.WithCancel(s.ctx)
	var latest error
	for range maxNameAttempts {
		name := uuid.NewString()
		p := s.opts.addEntropy(s.dir.Join(name))
		out, err := s.create(ctx, p)
		if err != nil {
			latest = err
			continue
		}
		s.out, s.cancel, s.statePath, s.relName = out, cancel, p, name
		return nil
	}
	cancel()
	s.writeErr = fmt.Errorf("checkpointstorage: Could not open output stream for state backend (%d attempts in %s): %w", maxNameAttempts, s.dir.Redacted(), latest)
	return s.writeErr
}

// Pos is the number of bytes written so far.
func (s *FsCheckpointStateOutputStream) Pos() int64 {
	n := int64(len(s.buf))
	if s.out != nil {
		n += s.out.Pos()
	}
	return n
}

// Flush writes the buffer to the state file once the state is larger than the
// threshold (creating the file); small state stays in the buffer, as in Flink.
func (s *FsCheckpointStateOutputStream) Flush() error {
	if s.closed {
		return errStreamClosed()
	}
	if s.out != nil || len(s.buf) > s.threshold {
		if err := s.flushToFile(); err != nil {
			return err
		}
		return s.out.Flush()
	}
	return nil
}

// Sync makes the bytes written to the state file durable; it does nothing while
// the state is still inline.
func (s *FsCheckpointStateOutputStream) Sync() error {
	if s.closed {
		return errStreamClosed()
	}
	if s.out == nil {
		return nil
	}
	if err := s.flushToFile(); err != nil {
		return err
	}
	return s.out.Sync()
}

// IsClosed reports whether the stream was closed.
func (s *FsCheckpointStateOutputStream) IsClosed() bool { return s.closed }

// Close discards the stream: a state file being written is aborted and never
// published. It returns nil, also when called again.
func (s *FsCheckpointStateOutputStream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.buf = nil
	if s.out != nil {
		vfs.Discard(s.out, s.cancel)
	}
	return nil
}

// CloseAndGetHandle closes the stream and returns: nil, nil when nothing was
// written; a *ByteStreamStateHandle when at most fileStateThreshold bytes were
// written; otherwise the published file's *RelativeFileStateHandle (exclusive
// state) or *FileStateHandle. When the file cannot be published (a failed write,
// a cancelled context given here or to CreateCheckpointStateOutputStream),
// nothing is, and the error says why.
func (s *FsCheckpointStateOutputStream) CloseAndGetHandle(ctx context.Context) (StreamStateHandle, error) {
	if s.closed {
		return nil, errStreamClosed()
	}
	if s.writeErr == nil && ctx.Err() != nil {
		s.writeErr = ctx.Err()
	}
	if s.writeErr != nil {
		err := s.writeErr
		_ = s.Close()
		return nil, s.closeError(err)
	}
	if s.out == nil && len(s.buf) == 0 {
		s.closed = true
		return nil, nil
	}
	if s.out == nil && len(s.buf) <= s.threshold {
		s.closed = true
		h := &ByteStreamStateHandle{Name: s.dir.Join(uuid.NewString()).String(), Data: append([]byte(nil), s.buf...)}
		s.buf = nil
		return h, nil
	}
	if err := s.flushToFile(); err != nil {
		_ = s.Close()
		return nil, s.closeError(err)
	}
	size := s.out.Pos()
	s.closed = true
	s.buf = nil
	s.created.keepVersion(s.out)
	err := s.out.Close()
	s.cancel()
	if err != nil {
		return nil, s.closeError(err)
	}
	s.created.file(ctx, s.fsys, s.statePath, s.out)
	if s.relative {
		return &RelativeFileStateHandle{
			FileStateHandle: FileStateHandle{FilePath: s.statePath.MakeQualified(s.fsys), Size: size, Scope: s.scope, registry: s.opts.registry},
			RelativePath:    s.relName,
		}, nil
	}
	return &FileStateHandle{FilePath: s.statePath.MakeQualified(s.fsys), Size: size, Scope: s.scope, registry: s.opts.registry}, nil
}

func (s *FsCheckpointStateOutputStream) closeError(err error) error {
	target := s.statePath.Redacted()
	if s.statePath.IsZero() {
		target = s.dir.Redacted()
	}
	return fmt.Errorf("checkpointstorage: Could not flush to file and close the file system output stream to %s in order to obtain the stream state handle: %w", target, err)
}

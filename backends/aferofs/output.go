package aferofs

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/vfs"
)

// Create opens a new file for writing, creating missing parent directories. The
// bytes go to a hidden temporary file in p's directory; Close publishes it at p.
// With NoOverwrite an existing p fails with fs.ErrExist (here or at Close); a
// directory at p fails with vfs.ErrIsDir; a file in the way of p's parents with
// vfs.ErrNotDir. Cancelling ctx before Close discards the file: Close fails
// and publishes nothing (a temporary file is removed as soon as ctx ends). The
// stream implements vfs.Aborter.
func (f *FileSystem) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.create(ctx, p, mode, true)
}

// CreateUnsynced is Create without the directory fsync at Close (with
// Options.Durable): the file's contents are fsynced and it is published
// atomically, and its name becomes durable at the next SyncDir of its
// directory. See vfs.DirSyncer.
func (f *FileSystem) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.create(ctx, p, mode, false)
}

// SyncDir fsyncs the directory dir (with Options.Durable; otherwise it only
// checks that dir is a directory). A missing dir fails with fs.ErrNotExist, a
// file with vfs.ErrNotDir. See vfs.DirSyncer.
func (f *FileSystem) SyncDir(ctx context.Context, dir vfs.Path) error {
	q, err := f.begin(ctx, "syncdir", dir)
	if err != nil {
		return err
	}
	n := name(q)
	fi, err := f.afs.Stat(n)
	switch {
	case err != nil:
		return vfs.NewPathError("syncdir", q, notExist(err))
	case !fi.IsDir():
		return vfs.NewPathError("syncdir", q, errorf(vfs.ErrNotDir, "not a directory"))
	}
	if err := f.syncDir(n); err != nil {
		return pathError("syncdir", q, err)
	}
	return nil
}

// create is Create; syncDir says whether Close fsyncs the directory.
func (f *FileSystem) create(ctx context.Context, p vfs.Path, mode vfs.WriteMode, syncDir bool) (vfs.OutputStream, error) {
	q, err := f.begin(ctx, "create", p)
	if err != nil {
		return nil, err
	}
	if mode != vfs.NoOverwrite && mode != vfs.Overwrite {
		return nil, vfs.NewPathError("create", q, errorf(fs.ErrInvalid, "write mode %d (expected NoOverwrite or Overwrite)", int(mode)))
	}
	if isRoot(q) {
		return nil, vfs.NewPathError("create", q, errorf(vfs.ErrIsDir, "cannot create a file over the root directory"))
	}
	n := name(q)
	f.mu.Lock()
	defer f.mu.Unlock()
	file, tmp, err := f.createLocked(q, n, mode)
	if err != nil {
		return nil, err
	}
	s := &outputStream{fsys: f, ctx: ctx, path: q, tmp: tmp, file: file, noReplace: mode == vfs.NoOverwrite, syncDir: syncDir}
	if f.opts.BufferSize > 0 {
		s.buf = bufio.NewWriterSize(file, f.opts.BufferSize)
	}
	if tmp != "" && ctx.Done() != nil {
		// A context that can end removes the temporary file as soon as it
		// does. A Publisher's hidden file has no name to remove: Write, Flush,
		// Sync and Close notice the ended context, so it needs no per-stream
		// AfterFunc (which costs more than the rest of a small Create).
		// s.stop is set under s.mu: a context that has already ended runs
		// the function at once, in another goroutine, which reads it.
		s.mu.Lock()
		s.stop = context.AfterFunc(ctx, func() {
			defer vfs.BeginCleanup()()
			s.discard(ctx.Err())
		})
		s.mu.Unlock()
	}
	return s, nil
}

// createLocked makes the file that a Create writes: a Publisher's hidden file,
// or a temporary file next to the target (whose name it returns).
func (f *FileSystem) createLocked(q vfs.Path, n string, mode vfs.WriteMode) (afero.File, string, error) {
	if f.publisher != nil {
		file, err := f.publisher.CreateHidden(n, mode == vfs.NoOverwrite)
		if err == nil {
			return file, "", nil
		}
		// The checks name what is in the way precisely.
		if cerr := f.prepareLocked(q, mode); cerr != nil {
			return nil, "", cerr
		}
		return nil, "", pathError("create", q, err)
	}
	if err := f.prepareLocked(q, mode); err != nil {
		return nil, "", err
	}
	var file afero.File
	var tmp string
	var err error
	for range 8 {
		tmp = tempName(n)
		file, err = f.afs.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return nil, "", pathError("create", q, err)
	}
	return file, tmp, nil
}

// prepareLocked checks the target of a Create and makes its missing parents.
func (f *FileSystem) prepareLocked(q vfs.Path, mode vfs.WriteMode) error {
	if err := f.checkTargetLocked(q, mode); err != nil {
		return err
	}
	if err := f.mkdirsLocked(q.Parent()); err != nil {
		return vfs.NewPathError("create", q, err)
	}
	return nil
}

// checkTargetLocked fails when the target of a Create cannot be written in mode.
func (f *FileSystem) checkTargetLocked(q vfs.Path, mode vfs.WriteMode) error {
	fi, err := f.afs.Stat(name(q))
	switch {
	case err == nil && fi.IsDir():
		return vfs.NewPathError("create", q, errorf(vfs.ErrIsDir, "a directory exists at the target"))
	case err == nil && mode == vfs.NoOverwrite:
		return vfs.NewPathError("create", q, errorf(fs.ErrExist, "file exists (use Overwrite to replace it)"))
	case err == nil, errors.Is(notExist(err), fs.ErrNotExist):
		return nil
	}
	return pathError("create", q, err)
}

// publishLocked moves the closed temporary file to its target.
func (f *FileSystem) publishLocked(s *outputStream) error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if s.tmp == "" {
		err := f.publisher.Publish(s.file, name(s.path), s.noReplace)
		if errors.Is(err, fs.ErrExist) {
			return errorf(fs.ErrExist, "file exists (created while this stream was open)")
		}
		return err
	}
	if s.noReplace {
		err := f.renameNoReplaceLocked(s.tmp, name(s.path))
		if errors.Is(err, fs.ErrExist) {
			return errorf(fs.ErrExist, "file exists (created while this stream was open)")
		}
		return err
	}
	n := name(s.path)
	if fi, err := f.afs.Stat(n); err == nil && fi.IsDir() {
		return errorf(vfs.ErrIsDir, "a directory exists at the target")
	}
	return f.afs.Rename(s.tmp, n)
}

// Publisher is an optional interface of an afero.Fs that can write a file no
// name reaches and then publish it at once, so that Create needs no temporary
// name and no rename (memfs's tree implements it). The engine detects it, as
// io/fs helpers detect ReadFileFS.
type Publisher interface {
	// CreateHidden returns a new, empty, writable file that will be published at
	// name, creating name's missing parent directories. No listing or lookup
	// shows the file. It fails, changing nothing, when a directory is at name
	// (syscall.EISDIR), when noReplace and a file is at name (fs.ErrExist) and
	// when a file is in the way of the parents (syscall.ENOTDIR). The engine
	// uses the file from one goroutine at a time (ReadAt and WriteAt included)
	// and closes it before Publish; the afero.Fs may rely on that.
	CreateHidden(name string, noReplace bool) (afero.File, error)
	// Publish makes f, a closed file from CreateHidden, visible at name at once,
	// replacing a file there unless noReplace (then it fails with an error that
	// errors.Is fs.ErrExist). It fails, publishing nothing, when a directory is at
	// name (syscall.EISDIR), and when the parent directory is no longer the one
	// the file was created in (removed, moved or emptied meanwhile; an error that
	// errors.Is fs.ErrNotExist).
	Publish(f afero.File, name string, noReplace bool) error
}

// outputStream writes a temporary file and publishes it on Close. It is one
// allocation per file, kept small (176 bytes): the afero name of the target is
// name(path), computed when needed.
type outputStream struct {
	fsys *FileSystem
	ctx  context.Context
	stop func() bool // unregisters the AfterFunc that discards on ctx's end; nil without one
	path vfs.Path
	tmp  string // afero name of the temporary file; "" for a Publisher's hidden file

	mu   sync.Mutex // guards the rest against a concurrent context cancellation
	file afero.File
	buf  *bufio.Writer // nil when unbuffered
	pos  int64
	wb   int64 // the bytes before wb were sent to disk (startWriteback)
	err  error // why the stream was discarded; nil while writable and after a good Close
	done bool  // closed, aborted or discarded
	// Set at Create (next to done, to spare words): noReplace is the write
	// mode NoOverwrite; syncDir makes Close fsync the directory (with
	// Options.Durable), false for CreateUnsynced.
	noReplace, syncDir bool
	// pub, once KeepVersion was called, receives the version a good Close
	// published (nil otherwise: a stream nobody asks pays one word).
	pub *published
}

// published is the version a stream published, or why it cannot tell.
type published struct {
	v   vfs.Version
	err error
	ok  bool // Close published
}

// writer is where Write puts bytes: the buffer, or the file when unbuffered.
func (s *outputStream) writer() io.Writer {
	if s.buf != nil {
		return s.buf
	}
	return s.file
}

var (
	_ vfs.OutputStream     = (*outputStream)(nil)
	_ vfs.Aborter          = (*outputStream)(nil)
	_ vfs.WrittenVersioner = (*outputStream)(nil)
)

// KeepVersion makes Close keep the version it publishes, for Version (see
// vfs.WrittenVersioner).
func (s *outputStream) KeepVersion() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pub == nil {
		s.pub = &published{}
	}
}

// Version returns the version Close published: on disk the device, inode,
// size and modification time of the file, read from the open file before it
// was renamed into place (a rename changes none of them); elsewhere
// (memory://), the file's status right after it was published, under this
// file system's lock, which every write through it takes to publish. It
// fails with errors.ErrUnsupported without KeepVersion before Close, and
// with fs.ErrInvalid when Close did not publish.
func (s *outputStream) Version() (vfs.Version, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.pub == nil:
		return vfs.Version{}, vfs.NewPathError("version", s.path, errorf(errors.ErrUnsupported, "KeepVersion was not called before Close"))
	case !s.pub.ok:
		return vfs.Version{}, vfs.NewPathError("version", s.path, errorf(fs.ErrInvalid, "the stream published nothing"))
	}
	return s.pub.v, s.pub.err
}

// onDisk reports whether s writes a temporary file on disk (afero.OsFs),
// which Close renames into place as it is.
func (s *outputStream) onDisk() bool {
	_, disk := s.fsys.afs.(*afero.OsFs)
	return disk && s.tmp != ""
}

// keepVersionLocked reads the version of the file s is about to publish, on
// disk, from the open file: another process may write the path once it is
// renamed into place. Elsewhere the file gets its time as it is published
// (a Publisher's; afero.MemMapFs's at Close), and is read after.
func (s *outputStream) keepVersionLocked() {
	if s.pub == nil || !s.onDisk() {
		return
	}
	fi, err := s.file.Stat()
	if err != nil {
		s.pub.err = pathError("version", s.path, err)
		return
	}
	s.pub.v = versionOf(fi)
}

// keepPublishedLocked records that s published, reading the file by its name
// under the file system's lock (held by the caller), which every write
// through it takes to publish, unless it was read on disk before.
func (s *outputStream) keepPublishedLocked() {
	if s.pub == nil {
		return
	}
	s.pub.ok = true
	if s.onDisk() {
		return
	}
	fi, err := s.fsys.lstat(name(s.path))
	if err != nil {
		s.pub.err = pathError("version", s.path, err)
		return
	}
	s.pub.v = versionOf(fi)
}

// Write appends b. After a failed Write the stream is discarded: nothing will be
// published and Close returns the error.
func (s *outputStream) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usableLocked("write"); err != nil {
		return 0, err
	}
	n, err := s.writer().Write(b)
	s.pos += int64(n)
	if err != nil {
		s.discardLocked(pathError("write", s.path, err))
		return n, s.err
	}
	if s.fsys.opts.Durable {
		s.writtenBackLocked()
	}
	return n, nil
}

// Pos returns the number of bytes written.
func (s *outputStream) Pos() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pos
}

// Flush writes buffered bytes to the temporary file. It does not publish.
func (s *outputStream) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usableLocked("flush"); err != nil {
		return err
	}
	return s.flushLocked("flush")
}

// Sync flushes and fsyncs the temporary file (a no-op where the afero.File's
// Sync is). It does not publish.
func (s *outputStream) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usableLocked("sync"); err != nil {
		return err
	}
	if err := s.flushLocked("sync"); err != nil {
		return err
	}
	if err := s.file.Sync(); err != nil {
		s.discardLocked(pathError("sync", s.path, err))
		return s.err
	}
	return nil
}

// Close publishes the file at its path; after a failed write, Abort or a
// cancelled context it publishes nothing and returns why. Closing a published
// stream again returns nil.
func (s *outputStream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return s.err
	}
	if s.stop != nil {
		s.stop()
	}
	if err := s.ctx.Err(); err != nil {
		s.discardLocked(vfs.NewPathError("close", s.path, err))
		return s.err
	}
	if err := s.flushLocked("close"); err != nil {
		return err
	}
	if s.fsys.opts.Durable {
		if err := s.file.Sync(); err != nil {
			s.discardLocked(pathError("close", s.path, err))
			return s.err
		}
	}
	s.keepVersionLocked()
	if err := s.file.Close(); err != nil {
		s.discardLocked(pathError("close", s.path, err))
		return s.err
	}
	s.fsys.mu.Lock()
	err := s.fsys.publishLocked(s)
	if err != nil {
		s.fsys.removeTempLocked(s.tmp)
	} else {
		s.keepPublishedLocked()
	}
	s.fsys.mu.Unlock()
	s.done = true
	if err != nil {
		s.err = pathError("close", s.path, err)
		return s.err
	}
	if s.syncDir && s.fsys.opts.Durable { // (filepath.Dir costs a path scan)
		if err := s.fsys.syncDir(filepath.Dir(name(s.path))); err != nil {
			return pathError("close", s.path, err)
		}
	}
	return nil
}

// Abort discards the stream: nothing is published, and Close returns an error
// wrapping fs.ErrClosed. Aborting a closed stream does nothing.
func (s *outputStream) Abort() error {
	s.discard(errorf(fs.ErrClosed, "write aborted"))
	return nil
}

// usableLocked fails when the stream was closed, discarded or its context ended.
func (s *outputStream) usableLocked(op string) error {
	if s.done {
		if s.err != nil {
			return s.err
		}
		return vfs.NewPathError(op, s.path, fs.ErrClosed)
	}
	if err := s.ctx.Err(); err != nil {
		s.discardLocked(vfs.NewPathError(op, s.path, err))
		return s.err
	}
	return nil
}

// flushLocked empties the write buffer; a failure discards the stream.
func (s *outputStream) flushLocked(op string) error {
	if s.buf == nil {
		return nil
	}
	if err := s.buf.Flush(); err != nil {
		s.discardLocked(pathError(op, s.path, err))
		return s.err
	}
	return nil
}

// discard is discardLocked for callers that do not hold s.mu.
func (s *outputStream) discard(why error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.done {
		if _, ok := why.(*fs.PathError); !ok {
			why = vfs.NewPathError("write", s.path, why)
		}
		s.discardLocked(why)
	}
}

// discardLocked closes and removes the temporary file and records why.
func (s *outputStream) discardLocked(why error) {
	if s.done {
		return
	}
	s.done = true
	s.err = why
	if s.stop != nil {
		s.stop()
	}
	_ = s.file.Close()
	s.fsys.mu.Lock()
	s.fsys.removeTempLocked(s.tmp)
	s.fsys.mu.Unlock()
}

// removeTempLocked removes a discarded stream's temporary file (a Publisher's
// hidden file has no name and goes with its last reference).
func (f *FileSystem) removeTempLocked(tmp string) {
	if tmp != "" {
		_ = f.afs.Remove(tmp)
	}
}

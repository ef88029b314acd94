package vfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"sync"
)

// ReadFileFS is implemented by file systems that read a whole file faster than
// Open + io.ReadAll (for example with one request). ReadFile uses it when present.
type ReadFileFS interface {
	FileSystem
	ReadFile(ctx context.Context, p Path) ([]byte, error)
}

// WriteFileFS is implemented by file systems that write a whole file faster than
// Create + Write + Close. WriteFile uses it when present. The contract is the
// same: nothing is visible unless the write succeeds.
type WriteFileFS interface {
	FileSystem
	WriteFile(ctx context.Context, p Path, data []byte, mode WriteMode) error
}

// CopyFS is implemented by file systems that copy a file inside themselves without
// moving the bytes through the client (a server-side copy). Copy uses it when
// source and destination are the same file system. It returns the bytes copied.
type CopyFS interface {
	FileSystem
	CopyFile(ctx context.Context, dst, src Path, mode WriteMode) (int64, error)
}

// Exists reports whether p exists. It is Stat with fs.ErrNotExist mapped to false.
func Exists(ctx context.Context, fsys FileSystem, p Path) (bool, error) {
	_, err := fsys.Stat(ctx, p)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, err
}

// ReadFile reads the whole file at p.
func ReadFile(ctx context.Context, fsys FileSystem, p Path) ([]byte, error) {
	if rf, ok := fsys.(ReadFileFS); ok {
		return rf.ReadFile(ctx, p)
	}
	in, err := fsys.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(in)
	if cerr := in.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return data, nil
}

// WriteFile writes data to p. The file appears only if every byte was written; on
// any error nothing is published.
func WriteFile(ctx context.Context, fsys FileSystem, p Path, data []byte, mode WriteMode) error {
	if wf, ok := fsys.(WriteFileFS); ok {
		return wf.WriteFile(ctx, p, data, mode)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out, err := fsys.Create(ctx, p, mode)
	if err != nil {
		return err
	}
	if _, err := out.Write(data); err != nil {
		Discard(out, cancel)
		return err
	}
	return out.Close()
}

// Discard throws away an output stream without publishing it: it calls Abort when
// the stream implements Aborter, cancels the stream's context when cancel is not
// nil, and closes it. Use it on error paths.
func Discard(out OutputStream, cancel context.CancelFunc) {
	if a, ok := out.(Aborter); ok {
		_ = a.Abort()
	}
	if cancel != nil {
		cancel()
	}
	_ = out.Close()
}

// Copy copies the file srcPath on src to dstPath on dst, streaming, and returns the
// number of bytes copied. The destination must not exist (NoOverwrite); use
// CopyWithMode to replace it. On any error nothing is published at dstPath.
func Copy(ctx context.Context, dst FileSystem, dstPath Path, src FileSystem, srcPath Path) (int64, error) {
	return CopyWithMode(ctx, dst, dstPath, src, srcPath, NoOverwrite)
}

// CopyWithMode is Copy with an explicit WriteMode. When dst and src are the same
// file system and it implements CopyFS, the copy happens server-side.
func CopyWithMode(ctx context.Context, dst FileSystem, dstPath Path, src FileSystem, srcPath Path, mode WriteMode) (int64, error) {
	if cf, ok := dst.(CopyFS); ok && sameFileSystem(dst, src) {
		return cf.CopyFile(ctx, dstPath, srcPath, mode)
	}
	in, err := src.Open(ctx, srcPath)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	return CopyFrom(ctx, dst, dstPath, in, mode)
}

// CopyFrom streams r into a new file at p and returns the bytes written. On any
// error (including from r) nothing is published.
func CopyFrom(ctx context.Context, fsys FileSystem, p Path, r io.Reader, mode WriteMode) (int64, error) {
	n, _, err := copyFrom(ctx, fsys, p, r, mode, false)
	return n, err
}

// copyFrom is CopyFrom; with keep, it asks the stream to keep the version it
// publishes (WrittenVersioner). It returns the stream, closed.
func copyFrom(ctx context.Context, fsys FileSystem, p Path, r io.Reader, mode WriteMode, keep bool) (int64, OutputStream, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out, err := fsys.Create(ctx, p, mode)
	if err != nil {
		return 0, nil, err
	}
	if wv, ok := out.(WrittenVersioner); ok && keep {
		wv.KeepVersion()
	}
	buf := copyBuffers.Get().(*[]byte)
	n, err := io.CopyBuffer(writerOnly{out}, r, *buf)
	copyBuffers.Put(buf)
	if err != nil {
		Discard(out, cancel)
		return n, nil, fmt.Errorf("vfs: copy to %s: %w", p, err)
	}
	if err := out.Close(); err != nil {
		return n, nil, err
	}
	return n, out, nil
}

// copyBuffers recycles CopyFrom's 1 MiB buffers, so copying many small files
// (a checkpoint's state) does not allocate a buffer per file.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

// writerOnly hides ReadFrom-style fast paths so CopyBuffer uses our buffer size.
type writerOnly struct{ io.Writer }

func sameFileSystem(a, b FileSystem) bool { return SameFileSystem(a, b) }

// SameFileSystem reports whether a and b are one file system: the same
// instance, or instances with the same URI (scheme and authority). It never
// compares values whose type is not comparable (a FileSystem may be a struct
// holding a func or a map), so it does not panic on them.
func SameFileSystem(a, b FileSystem) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if t := reflect.TypeOf(a); t == reflect.TypeOf(b) && t.Comparable() && a == b {
		return true
	}
	return a.URI().String() == b.URI().String()
}

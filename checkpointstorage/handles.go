package checkpointstorage

import (
	"bytes"
	"context"
	"io/fs"
	"strconv"

	"github.com/vfskit/vfskit/vfs"
)

// HandleKind says how a StreamStateHandle stores its state.
type HandleKind int

const (
	// KindInline: the bytes are in the handle (*ByteStreamStateHandle).
	KindInline HandleKind = iota + 1
	// KindFile: a file at an absolute path (*FileStateHandle).
	KindFile
	// KindRelativeFile: a file inside the checkpoint directory, recorded by its
	// name relative to that directory (*RelativeFileStateHandle).
	KindRelativeFile
)

// String returns "inline", "file" or "relative".
func (k HandleKind) String() string {
	switch k {
	case KindInline:
		return "inline"
	case KindFile:
		return "file"
	case KindRelativeFile:
		return "relative"
	}
	return "HandleKind(" + strconv.Itoa(int(k)) + ")"
}

// KindOf returns the kind of a handle of this package, and 0 for nil or any other
// implementation.
func KindOf(h any) HandleKind {
	switch h.(type) {
	case *ByteStreamStateHandle:
		return KindInline
	case *FileStateHandle:
		return KindFile
	case *RelativeFileStateHandle:
		return KindRelativeFile
	}
	return 0
}

// ByteStreamStateHandle is state held inline, in the handle (Flink's
// ByteStreamStateHandle). Discarding it does nothing.
type ByteStreamStateHandle struct {
	// Name identifies the state (a random UUID or the path it would have had).
	Name string
	// Data is the state.
	Data []byte
}

// NewByteStreamStateHandle returns an inline handle holding data (not copied).
func NewByteStreamStateHandle(name string, data []byte) *ByteStreamStateHandle {
	return &ByteStreamStateHandle{Name: name, Data: data}
}

// OpenInputStream returns a reader over Data.
func (h *ByteStreamStateHandle) OpenInputStream(context.Context) (vfs.InputStream, error) {
	return bytesInputStream{bytes.NewReader(h.Data)}, nil
}

// StateSize is len(Data).
func (h *ByteStreamStateHandle) StateSize() int64 { return int64(len(h.Data)) }

// DiscardState does nothing: the state is discarded with the handle.
func (h *ByteStreamStateHandle) DiscardState(context.Context) error { return nil }

// String describes the handle, its name redacted (vfs.Redact).
func (h *ByteStreamStateHandle) String() string {
	return "ByteStreamStateHandle{name=" + vfs.Redact(h.Name) + ", size=" + strconv.Itoa(len(h.Data)) + "}"
}

type bytesInputStream struct{ *bytes.Reader }

func (bytesInputStream) Close() error { return nil }

// FileStateHandle is state in a file (Flink's FileStateHandle). The file system
// is looked up from the path (through the registry the handle was created with,
// or vfs's default registry).
type FileStateHandle struct {
	// FilePath is the file's absolute, qualified path.
	FilePath vfs.Path
	// Size is the state size in bytes.
	Size int64
	// Scope records whether the file belongs to one checkpoint (Exclusive) or
	// is shared; RetainCheckpoints discards only exclusive files.
	Scope StateScope

	registry *vfs.Registry
}

// NewFileStateHandle returns a handle for the exclusive state in file p of size
// bytes.
func NewFileStateHandle(p vfs.Path, size int64) *FileStateHandle {
	return &FileStateHandle{FilePath: p, Size: size}
}

func (h *FileStateHandle) fileSystem(ctx context.Context) (vfs.FileSystem, error) {
	r := h.registry
	if r == nil {
		r = vfs.DefaultRegistry()
	}
	return r.GetPath(ctx, h.FilePath)
}

// OpenInputStream opens the file. A missing file fails with fs.ErrNotExist: at
// Open, or on an object store that opens lazily, at the first read. A FIFO,
// device or socket is refused (vfs.OpenRegular), never read.
func (h *FileStateHandle) OpenInputStream(ctx context.Context) (vfs.InputStream, error) {
	if h.FilePath.IsZero() {
		return nil, &fs.PathError{Op: "open state", Path: "", Err: fs.ErrInvalid}
	}
	fsys, err := h.fileSystem(ctx)
	if err != nil {
		return nil, err
	}
	return vfs.OpenRegular(ctx, fsys, h.FilePath)
}

// StateSize is Size.
func (h *FileStateHandle) StateSize() int64 { return h.Size }

// DiscardState deletes the file. A missing file is not an error.
func (h *FileStateHandle) DiscardState(ctx context.Context) error {
	if h.FilePath.IsZero() {
		return nil
	}
	fsys, err := h.fileSystem(ctx)
	if err != nil {
		return err
	}
	return fsys.Delete(ctx, h.FilePath, false)
}

// String describes the handle, its path redacted (vfs.Path.Redacted).
func (h *FileStateHandle) String() string {
	return "File State: " + h.FilePath.Redacted() + " [" + strconv.FormatInt(h.Size, 10) + " bytes]"
}

// RelativeFileStateHandle is exclusive state in a file inside the checkpoint
// directory, recorded in the metadata by its name relative to that directory
// (Flink's RelativeFileStateHandle). When the metadata is loaded, FilePath is
// resolved against the directory the metadata was loaded from, so a savepoint
// directory can be moved or copied to another backend and still restores.
type RelativeFileStateHandle struct {
	FileStateHandle
	// RelativePath is the file's name inside the checkpoint directory.
	RelativePath string
}

// NewRelativeFileStateHandle returns a handle for file p, whose path relative to
// the checkpoint directory is rel.
func NewRelativeFileStateHandle(p vfs.Path, rel string, size int64) *RelativeFileStateHandle {
	return &RelativeFileStateHandle{FileStateHandle: FileStateHandle{FilePath: p, Size: size}, RelativePath: rel}
}

// String describes the handle, its path redacted (vfs.Path.Redacted).
func (h *RelativeFileStateHandle) String() string {
	return "RelativeFileStateHandle State: " + h.FilePath.Redacted() + ", " + h.RelativePath + " [" + strconv.FormatInt(h.Size, 10) + " bytes]"
}

package vfs

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"strconv"
	"time"
)

// FileSystem is one file system instance, identified by its URI (scheme and
// authority), such as file:///, memory://demo/ or s3://bucket/.
//
// Methods take paths that are either absolute paths of this file system (with or
// without its scheme and authority) or relative paths, which resolve against
// WorkingDirectory. A FileSystem is safe for concurrent use.
type FileSystem interface {
	// URI returns scheme://authority/ that identifies this instance.
	URI() *url.URL
	// WorkingDirectory is the directory relative paths resolve against.
	WorkingDirectory() Path
	// HomeDirectory is the user's home directory on this file system.
	HomeDirectory() Path
	// Kind tells whether this is a real file system or an object store.
	Kind() Kind
	// IsDistributed reports whether the files are visible to other machines.
	IsDistributed() bool

	// Stat returns the status of a file or directory. A missing path fails with an
	// error that errors.Is fs.ErrNotExist.
	Stat(ctx context.Context, p Path) (FileStatus, error)
	// List returns the entries of a directory sorted by name. Listing a file returns
	// that file's own status. A missing path fails with fs.ErrNotExist.
	List(ctx context.Context, dir Path) ([]FileStatus, error)
	// Open opens a file for reading. A directory fails with ErrIsDir, a missing file
	// with fs.ErrNotExist. An object store (KindObjectStore) may open lazily, sending
	// no request: then the first Read or ReadAt fails with those errors instead.
	Open(ctx context.Context, p Path) (InputStream, error)
	// Create opens a new file for writing, creating missing parent directories. The
	// file becomes visible only when the stream's Close returns nil. Cancelling ctx
	// before Close discards the file. With NoOverwrite an existing target fails with
	// fs.ErrExist (at Create or, at the latest, at Close); a directory fails with
	// ErrIsDir.
	Create(ctx context.Context, p Path, mode WriteMode) (OutputStream, error)
	// Mkdirs creates a directory and its missing parents. An existing directory is
	// fine; a file at or above p fails with ErrNotDir (on a real file system).
	Mkdirs(ctx context.Context, p Path) error
	// Delete removes a file or a directory. A missing path returns nil. A non-empty
	// directory fails with ErrDirNotEmpty unless recursive, and nothing is deleted.
	Delete(ctx context.Context, p Path, recursive bool) error
	// Rename moves a file or a whole directory tree. A missing source fails with
	// fs.ErrNotExist, an existing destination with fs.ErrExist. Missing parents of
	// dst are created. Of several renames racing onto one destination file exactly
	// one succeeds; the others fail with fs.ErrExist and keep their sources.
	// A rename never deletes a version of a file that it did not move: where it
	// is a copy and a delete (object stores), a file written to the source
	// while it runs stays there, and Rename fails with an error wrapping
	// ErrChanged that names it.
	Rename(ctx context.Context, src, dst Path) error
}

// FileStatus describes a file or directory. For a directory Size is 0.
type FileStatus struct {
	Path    Path
	Size    int64
	ModTime time.Time
	IsDir   bool
	// Symlink reports that a listed entry is a symbolic link (file systems
	// with links, such as file://, set it in List). The other fields describe
	// the link's target (the link itself when the target is missing). Walk does
	// not descend into a linked directory unless asked to follow links.
	Symlink bool
	// Special holds the type bits (fs.ModeNamedPipe, fs.ModeSocket,
	// fs.ModeDevice, fs.ModeCharDevice, fs.ModeIrregular) of a file that is
	// neither a regular file nor a directory: opening one may block (a
	// FIFO) or act on a device. 0 for regular files and directories, and on
	// file systems without such files (object stores, memory://).
	Special fs.FileMode
	// FileID is the file's device and inode where the file system has them
	// (file://; of a link's target, like the other fields), the zero FileID
	// elsewhere. VersionOf puts it in the Version, so that a conditional
	// delete of a listed file refuses another file found under its name
	// since: a copy however alike (cp -a keeps names, sizes and times),
	// reached through a directory swapped for a symbolic link.
	FileID FileID
}

// FileID identifies a file on a disk: its device and inode numbers, the same
// whichever name, hard link or symbolic link reaches it, and another for a
// copy. The zero FileID means unknown (object stores, memory://, systems
// without inodes).
type FileID struct {
	Dev, Ino uint64
}

// IsZero reports whether id is unknown.
func (id FileID) IsZero() bool { return id == FileID{} }

// String returns "device:inode" in decimal, the Version.ID of a file on disk;
// "" for the zero FileID.
func (id FileID) String() string {
	if id.IsZero() {
		return ""
	}
	return strconv.FormatUint(id.Dev, 10) + ":" + strconv.FormatUint(id.Ino, 10)
}

// IsRegular reports whether s is a regular file: neither a directory nor a
// special file.
func (s FileStatus) IsRegular() bool { return !s.IsDir && s.Special == 0 }

// Name returns the last element of the status's path.
func (s FileStatus) Name() string { return s.Path.Name() }

// InputStream reads a file. It is not safe for concurrent use, like Flink's
// FSDataInputStream, except that ReadAt does not move the offset used by Read.
// It reads one version of the file: when the file is replaced or deleted while
// the stream is open, each read returns bytes of the version the stream began
// with (an open file on disk or in memory keeps it) or fails with an error
// wrapping ErrChanged (an object store, which cannot); never bytes of the new
// version.
type InputStream interface {
	io.ReadSeekCloser
	io.ReaderAt
}

// OutputStream writes a file. Nothing is visible at the target path until Close
// returns nil. It is not safe for concurrent use.
type OutputStream interface {
	io.WriteCloser
	// Pos is the number of bytes written so far.
	Pos() int64
	// Flush pushes buffered bytes towards the storage. It does not publish the file.
	Flush() error
	// Sync makes the bytes written so far durable where the backend can (fsync on
	// local disk); it does not publish the file.
	Sync() error
}

// Aborter is implemented by output streams that can be discarded explicitly. After
// Abort nothing written is published, and Close returns an error. Every built-in
// backend's streams implement it; cancelling the context given to Create has the
// same effect.
type Aborter interface {
	Abort() error
}

// WriteMode says what Create does when the target exists.
type WriteMode int

const (
	// NoOverwrite fails with fs.ErrExist when the target exists. It is the zero
	// value, so the safe behaviour is the default.
	NoOverwrite WriteMode = iota
	// Overwrite replaces an existing file.
	Overwrite
)

// String returns "NoOverwrite" or "Overwrite".
func (m WriteMode) String() string {
	switch m {
	case NoOverwrite:
		return "NoOverwrite"
	case Overwrite:
		return "Overwrite"
	}
	return fmt.Sprintf("WriteMode(%d)", int(m))
}

// Kind classifies a file system by the guarantees it gives, like Flink's
// FileSystemKind.
type Kind int

const (
	// KindFileSystem has real directories and atomic rename.
	KindFileSystem Kind = iota
	// KindObjectStore has implicit directories (prefixes) and a rename that is a
	// (conditional) copy followed by a delete: not atomic for readers.
	KindObjectStore
)

// String returns "FileSystem" or "ObjectStore".
func (k Kind) String() string {
	switch k {
	case KindFileSystem:
		return "FileSystem"
	case KindObjectStore:
		return "ObjectStore"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

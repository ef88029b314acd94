package aferofs

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/vfs"
)

// Options configures a FileSystem. The zero value of every field but Scheme means
// "none" or the default stated on the field.
type Options struct {
	// Scheme is the URI scheme the file system serves, such as "sftp". Required.
	Scheme string
	// Authority is the URI authority (host, bucket, name); "" for none.
	Authority string
	// Kind is what Kind() reports; the engine always behaves as a real file
	// system (KindFileSystem, the zero value).
	Kind vfs.Kind
	// Distributed is what IsDistributed() reports.
	Distributed bool
	// WorkingDirectory is the absolute path that relative paths resolve against;
	// "" means "/". Getwd, when set, takes precedence.
	WorkingDirectory string
	// Getwd, when set, is called whenever the working directory is needed (the
	// local backend passes os.Getwd so relative paths follow os.Chdir). An error
	// falls back to WorkingDirectory.
	Getwd func() (string, error)
	// HomeDirectory is the absolute path HomeDirectory() reports; "" means the
	// working directory.
	HomeDirectory string
	// Durable makes Close fsync the file before publishing it and fsync its
	// directory afterwards, and Rename and directory creation fsync the
	// directories they changed, so a published file survives a crash. For
	// afero.OsFs; a no-op elsewhere.
	Durable bool
	// RenameNoReplace, when set, renames oldname to newname (names of the
	// afero.Fs) atomically unless newname exists, in which case it fails with an
	// error that errors.Is fs.ErrExist. Returning an error that errors.Is
	// errors.ErrUnsupported makes the engine fall back to check-then-rename under
	// its lock. The local backend sets it to renameat2(RENAME_NOREPLACE).
	RenameNoReplace func(oldname, newname string) error
	// OpenBeneath, when set, opens the file rel (a '/'-separated relative
	// path of names) below the directory dir (an afero name) for reading
	// without following any symbolic link in rel, failing with an error
	// wrapping ErrLinkInPath where one is. It must not block on a FIFO.
	// OpenBeneath (vfs.OpenBeneathFS) uses it; the local backend sets it to
	// openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) on Linux.
	OpenBeneath func(dir, rel string) (*os.File, error)
	// BufferSize is the size of the write buffer of output streams; 0 means no
	// buffering (every Write goes straight to the afero.File).
	BufferSize int
}

// FileSystem is an afero.Fs served as a vfs.FileSystem. It is safe for concurrent
// use; its streams are not. Create it with New.
type FileSystem struct {
	afs  afero.Fs
	opts Options
	uri  url.URL
	root vfs.Path // scheme://authority/
	wd   vfs.Path
	home vfs.Path // zero: the working directory
	// drives says whether a path of f's scheme can start with a Windows drive,
	// so that a leading "/" does not make it absolute ("/C:x" is relative).
	drives bool
	// publisher and statuser are afs's optional interfaces, or nil.
	publisher Publisher
	statuser  Statuser

	// mu serializes every metadata change made through this FileSystem.
	mu sync.Mutex
}

var (
	_ vfs.FileSystem = (*FileSystem)(nil)
	_ vfs.DirSyncer  = (*FileSystem)(nil)
)

// New returns afs served as a vfs.FileSystem under opts.Scheme and opts.Authority.
// It fails with fs.ErrInvalid when the scheme, the authority or a directory in
// opts is not valid.
func New(afs afero.Fs, opts Options) (*FileSystem, error) {
	if afs == nil {
		return nil, fmt.Errorf("aferofs: %w: nil afero.Fs", fs.ErrInvalid)
	}
	if opts.Scheme == "" {
		return nil, fmt.Errorf("aferofs: %w: empty scheme (expected a URI scheme such as \"sftp\")", fs.ErrInvalid)
	}
	if strings.ContainsAny(opts.Authority, "/\\") {
		return nil, fmt.Errorf("aferofs: %w: authority %q contains a slash (expected a host or name)", fs.ErrInvalid, vfs.RedactAuthority(opts.Authority))
	}
	root, err := vfs.NewPath(opts.Scheme + "://" + opts.Authority + "/")
	if err != nil {
		return nil, fmt.Errorf("aferofs: scheme %q, authority %q: %w", opts.Scheme, vfs.RedactAuthority(opts.Authority), err)
	}
	if root.Scheme() != strings.ToLower(opts.Scheme) || root.Authority() != opts.Authority {
		return nil, fmt.Errorf("aferofs: %w: scheme %q with authority %q does not form a URI", fs.ErrInvalid, opts.Scheme, vfs.RedactAuthority(opts.Authority))
	}
	f := &FileSystem{afs: afs, opts: opts, root: root}
	f.publisher, _ = afs.(Publisher)
	f.statuser, _ = afs.(Statuser)
	f.uri = *root.URI()
	if probe, err := vfs.NewPath(root.String() + "C:x"); err != nil || !probe.IsAbsolute() {
		f.drives = true
	}
	if f.wd, err = f.absolute("working directory", opts.WorkingDirectory); err != nil {
		return nil, err
	}
	if opts.HomeDirectory != "" {
		if f.home, err = f.absolute("home directory", opts.HomeDirectory); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// absolute turns a directory given in Options into a path of f; "" is the root.
func (f *FileSystem) absolute(what, dir string) (vfs.Path, error) {
	if dir == "" {
		return f.root, nil
	}
	p, err := vfs.NewPath(dir)
	if err == nil && p.Scheme() == "" && p.Authority() == "" && p.IsAbsolute() {
		return f.root.Join(p.Path()), nil
	}
	return vfs.Path{}, fmt.Errorf("aferofs: %w: %s %q must be an absolute path without scheme", fs.ErrInvalid, what, dir)
}

// Afero returns the afero.Fs under f. Changing it directly bypasses f's
// guarantees.
func (f *FileSystem) Afero() afero.Fs { return f.afs }

// URI returns scheme://authority/.
func (f *FileSystem) URI() *url.URL {
	u := f.uri
	return &u
}

// WorkingDirectory is the directory relative paths resolve against.
func (f *FileSystem) WorkingDirectory() vfs.Path {
	if f.opts.Getwd != nil {
		if dir, err := f.opts.Getwd(); err == nil {
			if p, err := f.absolute("working directory", dir); err == nil {
				return p
			}
		}
	}
	return f.wd
}

// HomeDirectory is Options.HomeDirectory, or the working directory.
func (f *FileSystem) HomeDirectory() vfs.Path {
	if !f.home.IsZero() {
		return f.home
	}
	return f.WorkingDirectory()
}

// Kind returns Options.Kind.
func (f *FileSystem) Kind() vfs.Kind { return f.opts.Kind }

// IsDistributed returns Options.Distributed.
func (f *FileSystem) IsDistributed() bool { return f.opts.Distributed }

// String returns the URI, for logs.
func (f *FileSystem) String() string { return f.root.String() }

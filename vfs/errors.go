package vfs

import (
	"errors"
	"io/fs"
	"sort"
	"strings"
)

// Errors that backends wrap in *fs.PathError, next to the io/fs sentinels.
var (
	// ErrDirNotEmpty: a non-recursive Delete of a directory that has entries.
	ErrDirNotEmpty = errors.New("directory not empty")
	// ErrNotDir: a path component that must be a directory is a file (Mkdirs on or
	// under a file, List under a file).
	ErrNotDir = errors.New("not a directory")
	// ErrIsDir: a file operation (Open, Create) on a directory.
	ErrIsDir = errors.New("is a directory")
	// ErrUnsupportedScheme: no factory is registered for a URI's scheme.
	ErrUnsupportedScheme = errors.New("unsupported file system scheme")
	// ErrChanged: a Read, ReadAt or Seek of an InputStream found that the file
	// was replaced (or deleted) after the stream's first request, on a store
	// that cannot keep reading the version it started with (an object store).
	// The stream returns no byte of the new version: it fails, and reopening
	// the file reads the new version from the start. Nothing was damaged.
	ErrChanged = errors.New("file changed while it was being read")
	// ErrBucketNotExist: the bucket (or container) a path on an object store
	// is in does not exist. It matches no io/fs sentinel: a missing bucket is
	// a configuration error (a misspelt name, another endpoint or account),
	// not a missing file, so neither rm -f nor Exists takes it for absence.
	ErrBucketNotExist = errors.New("bucket does not exist")
)

// NewPathError returns &fs.PathError{Op: op, Path: p.Redacted(), Err:
// RedactError(err)}: the error shape every vfs operation returns. Its Path and
// message are redacted (no user info, no secret parameter), so that printing the
// error never shows a password; the caller has p itself, and errors.Is and
// errors.As see err as before.
func NewPathError(op string, p Path, err error) error {
	return &fs.PathError{Op: op, Path: p.Redacted(), Err: RedactError(err)}
}

// UnsupportedSchemeError is returned for a URI whose scheme has no registered
// factory. It errors.Is ErrUnsupportedScheme.
type UnsupportedSchemeError struct {
	Scheme     string   // the scheme asked for
	URI        string   // the URI as given (Error shows it redacted)
	Registered []string // the schemes that are registered, sorted
	// InDefaultRegistry says that the registry asked is not the default one
	// (it came from NewRegistry) and the default registry has the scheme: the
	// backend is imported, but was never registered on this registry.
	InDefaultRegistry bool
}

func (e *UnsupportedSchemeError) Error() string {
	reg := append([]string(nil), e.Registered...)
	sort.Strings(reg)
	list := "none"
	if len(reg) > 0 {
		list = strings.Join(reg, ", ")
	}
	hint := "no backend registered it: import the backend package that does, or Register a factory for it"
	if e.InDefaultRegistry {
		hint = "this registry is not vfs.DefaultRegistry(), where the imported backend registered '" + e.Scheme +
			"': register the scheme on this registry (Register) or use vfs.DefaultRegistry()"
	}
	return "vfs: " + ErrUnsupportedScheme.Error() + " '" + e.Scheme + "' in '" + Redact(e.URI) +
		"' (registered schemes: " + list + "; " + hint + ")"
}

// Is reports whether target is ErrUnsupportedScheme.
func (e *UnsupportedSchemeError) Is(target error) bool { return target == ErrUnsupportedScheme }

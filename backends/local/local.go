// Package local is vfskit's local-disk file system, registered for the "file"
// scheme (the default scheme of scheme-less paths). It is the aferofs engine
// over afero.OsFs with crash-safe publication:
//
//   - Create writes to a hidden temporary file in the target's directory. Close
//     flushes it, fsyncs it, renames it into place and fsyncs the directory, so a
//     file is complete and durable once visible, and never visible before.
//   - NoOverwrite publication and Rename use renameat2(RENAME_NOREPLACE) on
//     Linux, so two writers, even in different processes, can never clobber
//     each other. Where the kernel or file system lacks the flag (and on other
//     systems) files are published with link+unlink, which is just as safe, and
//     directories are renamed after a check under the FileSystem's lock, which
//     is safe within the process.
//   - A failed write, Abort, or a cancelled Create context removes the
//     temporary file.
//   - vfs.NewRecoverableWriter gives Flink's exactly-once file writer
//     (aferofs.FileSystem.RecoverableWriter): a hidden in-progress file next
//     to the target (".vfskit-inprogress-<write id><check>-<name>", left out
//     of listings: aferofs.IsInProgressName), fsynced at
//     Persist, cut back to the persisted bytes at Recover and renamed into
//     place at Commit, with the directory fsynced. Tokens are valid in another
//     process, so a job killed with SIGKILL continues or commits its file
//     after a restart. vfskit clean-temp never removes in-progress files (a
//     token may still need them, however old); delete one by hand once no
//     token will be recovered.
//
// # URLs
//
// file:///absolute/path, or a path without scheme ("/tmp/x", "relative/x",
// C:\data on Windows). Relative paths resolve against the process's current
// working directory (os.Getwd, at each call); HomeDirectory is os.UserHomeDir.
// A file URI with an authority ("file://host/x") is rejected: it names another
// machine (vfs.Get adds the hint "did you forget a slash?").
//
// Importing the package (even blank) registers the scheme with vfs.Register:
//
//	import _ "github.com/vfskit/vfskit/backends/local"
package local

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"os"

	"github.com/spf13/afero"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/vfs"
)

// Scheme is the URI scheme of the local file system.
const Scheme = "file"

// BufferSize is the write buffer of output streams: writes smaller than it are
// gathered, larger ones go straight to the file.
const BufferSize = 64 << 10

func init() {
	vfs.Register(Scheme, Factory)
}

// Factory is the vfs.Factory for the "file" scheme. It fails with fs.ErrInvalid
// for a URI with an authority.
func Factory(_ context.Context, uri *url.URL) (vfs.FileSystem, error) {
	if uri.Host != "" || uri.User != nil {
		return nil, &fs.PathError{Op: "open file system", Path: vfs.RedactURL(uri), Err: fmt.Errorf(
			"%w: a file URI has no authority (expected file:///path)", fs.ErrInvalid)}
	}
	return New(), nil
}

// New returns the local disk as a vfs.FileSystem (file:///).
func New() *aferofs.FileSystem {
	wd, _ := os.Getwd()
	home, err := os.UserHomeDir()
	if err != nil {
		home = "" // HomeDirectory falls back to the working directory
	}
	fsys, err := aferofs.New(afero.NewOsFs(), aferofs.Options{
		Scheme:           Scheme,
		Kind:             vfs.KindFileSystem,
		WorkingDirectory: absOrRoot(wd),
		Getwd:            os.Getwd,
		HomeDirectory:    absOrRoot(home),
		Durable:          true,
		RenameNoReplace:  renameNoReplace,
		OpenBeneath:      openBeneath,
		BufferSize:       BufferSize,
	})
	if err != nil {
		panic("local: " + err.Error()) // unreachable: every option is valid
	}
	return fsys
}

// absOrRoot returns dir when it parses as an absolute path, "" otherwise.
func absOrRoot(dir string) string {
	if p, err := vfs.NewPath(dir); err != nil || !p.IsAbsolute() || p.Scheme() != "" || p.Authority() != "" {
		return ""
	}
	return dir
}

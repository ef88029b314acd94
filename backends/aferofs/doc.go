// Package aferofs turns any afero.Fs into a vfs.FileSystem. It is the engine
// under vfskit's memory:// (memfs) and file:// (local) backends, and the one-call
// way for an integrator to serve an afero file system (sftp, zip, a BasePathFs
// jail, ...) under a URI scheme of their choice:
//
//	fsys, err := aferofs.New(sftpfs.New(client), aferofs.Options{Scheme: "sftp", Authority: "host"})
//
// # URLs
//
// A FileSystem serves scheme://authority/ as given in Options. Its paths are
// absolute '/'-separated paths of the underlying afero.Fs ("sftp://host/a/b" is
// "/a/b" on the afero.Fs); on Windows "/C:/x" becomes "C:\x". Paths with the
// scheme and authority left out, and relative paths (against
// Options.WorkingDirectory), are accepted; paths of another scheme or authority
// fail with fs.ErrInvalid.
//
// # Guarantees
//
// On top of whatever the afero.Fs offers, the engine gives every vfs contract:
//
//   - Create writes to a hidden temporary file in the target's directory and
//     publishes it with a rename when Close succeeds, so no reader ever sees a
//     partial file. A temporary name is ".vfskit-tmp-", 16 hex digits of a
//     random write id and 8 hex digits of a check of that id; only names of
//     exactly that form are hidden from List and reserved (fs.ErrInvalid
//     elsewhere). Every other name is a user's, whatever it starts with:
//     ".vfskit-tmp-notes.txt" is listed, copied and moved like any file. A
//     process killed while writing leaves its temporary file behind;
//     vfs.CleanTemp (the CLI's "vfskit clean-temp") removes stale ones, and
//     only those. An afero.Fs that implements
//     Publisher (memfs's tree) instead writes a file no name reaches and links it
//     in at Close: no temporary name, no rename. One that implements Statuser
//     answers Stat without building an os.FileInfo.
//   - A failed write, Abort, or a cancelled Create context removes the temporary
//     file and publishes nothing (a temporary file is removed as soon as the
//     context ends; a Publisher's hidden file, which has no name, is dropped at
//     the stream's next Write, Flush, Sync or Close, without a per-stream
//     context.AfterFunc).
//   - With Options.Durable, Close fsyncs the file and, after publishing it, its
//     directory, so the file is durable once Close returns. CreateUnsynced and
//     SyncDir (vfs.DirSyncer) let a writer of many files sync each directory
//     once instead.
//   - NoOverwrite publication and Rename never replace an existing target. With
//     Options.RenameNoReplace (the local backend uses renameat2) this holds
//     against other processes too; without it, the engine checks and renames
//     under a lock, which is atomic against everything done through this
//     FileSystem value.
//   - Metadata changes (Create's setup, publication, Mkdirs, Delete, Rename) are
//     serialized by the FileSystem, so afero file systems that are not safe for
//     concurrent metadata changes (afero.MemMapFs) stay consistent. File contents
//     are written and read without that lock.
//   - Errors are *fs.PathError values naming the vfs path (never the temporary
//     name) and wrapping fs.ErrNotExist, fs.ErrExist, fs.ErrInvalid or
//     vfs.ErrDirNotEmpty, vfs.ErrNotDir, vfs.ErrIsDir.
//   - The root directory cannot be deleted recursively (fs.ErrInvalid), so a
//     mistaken Delete("/", true) never wipes a disk.
//
// The afero.Fs must not be changed behind the FileSystem's back while it is in
// use, except by other processes on a real disk.
package aferofs

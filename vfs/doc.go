// Package vfs is vfskit's filesystem abstraction: one [FileSystem] interface over
// local disk, S3 and S3-compatible stores, Google Cloud Storage, Azure Blob
// Storage, memory, and any URI scheme an integrator registers. It is a Go port of Apache Flink's org.apache.flink.core.fs.
//
// # Paths
//
// A [Path] is a parsed, normalized URI-like value with Flink's Path semantics:
// "s3://bucket/a/b", "file:///tmp/x", "/tmp/x", "C:\\data" and "relative/dir" all
// parse. Paths are comparable values: equal paths are == and work as map keys.
//
// There are two ways in, and they differ in one point:
//
//   - [NewPath] is Flink's new Path(String), for configuration strings: a "\" in
//     the path becomes "/". It passes Flink's PathTest: "C:" is a relative path,
//     Depth("C:/my/windows/path") is 4, "\\server\share" is a path (not an
//     authority), "s3://bucket" prints as "s3://bucket/".
//   - [ParsePath], [PathOf] and [Path.Join] are exact, for names that come from a
//     listing or a user: they split only on "/" and keep every other character
//     ("?", "#", "%", "\", spaces, unicode); nothing is cut, decoded or translated.
//     [Path.String] prints a form that ParsePath reads back to the same Path,
//     always, so a listed name reaches the same object again.
//
// Neither parser percent-decodes a path ("s3://b/a%20b" is the key "a%20b"). The
// authority is kept as written; its user info is percent-encoded as in any URI
// ("memory://u:p%2Fw@h/") and [Path.URI] decodes it. [Path.Resolve] refuses a child
// with a scheme or an authority, as Flink does.
//
// # Secrets
//
// [Path.String] includes user info, so that it reads back; nothing else in vfskit
// prints it. One redaction hides secrets everywhere: [Path.Redacted],
// [Redact] (any text: a message, a command line), [RedactURI] (one URI as a user
// gave it, valid or not: everything up to the authority's last '@' is user info,
// spaces included), [RedactURL], [RedactAuthority] and [RedactError]. It replaces
// with "xxxxx" the user info of every URI, whatever its password holds ('/', '#',
// '?', '"', '\', spaces, "%40", percent-encoded or not), and the value
// of every parameter whose name suggests a secret ([IsSecretName]: secret, password,
// token, key, sig, credential, X-Amz-*, ...), also inside another parameter's
// percent-encoded value. Every *fs.PathError from [NewPathError] and every vfs
// error is redacted, parse errors of invalid URIs included; [RedactingHandler] wraps a log/slog handler so that log lines
// are too, and a Path logs redacted with any handler (it is a slog.LogValuer).
//
// # File systems and schemes
//
// A [FileSystem] serves one (scheme, authority) pair, such as s3://bucket or
// memory://name. Backends register a [Factory] for their scheme in an init function,
// so a program enables a backend with a blank import, as database/sql drivers do:
//
//	import _ "github.com/vfskit/vfskit/backends/s3"
//
// [Get] (or [Path.FileSystem]) then returns the cached instance for a URI.
// Scheme-less paths use the default scheme, "file" unless [Registry.SetDefaultScheme]
// says otherwise.
//
// # Location identity
//
// One object has many spellings: s3://, s3a:// and s3p:// of one bucket at one
// endpoint, a file:// path through a linked ancestor, abfss:// and wasbs:// URIs
// of an azblob:// container. [Canonical] returns the one path every spelling of
// an object maps to (a key for maps) and [SameLocation] compares two paths by
// it. Each scheme's rule ([Identity]) is registered by its backend beside its
// factory ([Registry.RegisterIdentity]); a scheme without one compares as
// written. A rule that cannot tell which object a path names returns an error
// ([ErrForeign] for a store this process is not configured for), which is never
// proof that two paths differ.
//
// # The contract
//
// Every backend gives the same guarantees, checked by the conformance package:
//
//   - A file is durable and visible to every reader once its [OutputStream]'s Close
//     returns nil, and not before: no reader ever sees a partial file.
//   - Cancelling the context given to Create, or calling Abort (see [Aborter]), or a
//     failed write followed by Close, publishes nothing.
//   - [NoOverwrite] (the zero WriteMode) fails with [fs.ErrExist] when the target
//     exists; [Overwrite] replaces it. Between writers racing with NoOverwrite onto
//     one path exactly one Close succeeds.
//   - Create makes missing parent directories, as Flink's local file system does.
//   - Deleting a non-empty directory without recursive fails with [ErrDirNotEmpty]
//     and leaves everything in place; deleting a missing path returns nil.
//   - Rename fails with [fs.ErrExist] when the destination exists and with
//     [fs.ErrNotExist] when the source is missing. Between renames racing onto one
//     destination file exactly one succeeds; the others fail with [fs.ErrExist]
//     and keep their sources.
//   - Errors are *[fs.PathError] values wrapping the io/fs sentinels ([fs.ErrNotExist],
//     [fs.ErrExist], [fs.ErrInvalid]) or this package's ([ErrDirNotEmpty], [ErrNotDir],
//     [ErrIsDir]), so errors.Is works the same on every backend.
//
// Object stores ([KindObjectStore]) differ where the contract allows: directories are
// implicit (an empty directory does not exist), and Rename is a copy followed by a
// delete and is not atomic for readers (they may see src and dst at once, or part
// of a directory at either place), though racing renames still have one winner. Open may be lazy and send no request: Open of a missing
// file or a directory may succeed, and the first Read or ReadAt then fails with an
// *[fs.PathError] naming the path that wraps [fs.ErrNotExist] (for a directory,
// [ErrIsDir] or [fs.ErrNotExist]). Create on a path that is also a directory need not
// fail: an object store can hold the key "d" next to keys under "d/".
//
// A FileSystem is safe for concurrent use; its streams are not.
//
// # Helpers
//
// [Exists], [ReadFile], [WriteFile], [Copy], [CopyTree], [Walk] and [IOFS] are written once in terms
// of the interface. Like io/fs, they detect optional interfaces ([ReadFileFS],
// [WriteFileFS], [CopyFS]) that a backend implements when it can do better, and fall
// back otherwise.
//
// # Exactly-once files
//
// [NewRecoverableWriter] returns a file system's [RecoverableWriter], Flink's
// createRecoverableWriter: a stream persisted mid-file ([RecoverableOutputStream.Persist])
// survives the death of its process, is continued from its token by another
// ([RecoverableWriter.Recover]) and is published exactly once, even when the commit is
// repeated after a crash ([Committer.CommitAfterRecovery]). Nothing is visible at the
// target before Commit. file:// and memory:// write an in-progress file next to the
// target, s3:// a multipart upload, gs:// composed pieces, azblob:// staged blocks;
// [SealToken] and [OpenToken] make every token versioned, checked and tied to one file
// system. The guide docs/exactly-once.md shows a job using it.
//
// # Tree copies, moves and conditional deletes
//
// [CopyTree] copies a file or a directory tree between any two file systems: it
// lists the source first, then copies a few files at a time (server-side where
// the store can, [CopyFS]), with a progress callback, an overwrite policy (never,
// always, skip existing, replace older), a link policy (skip, refuse, follow) and
// an undo of exactly what it wrote when it fails. A destination inside the source
// is refused. Where the source can open files beneath a directory without
// following links ([OpenBeneathFS], file:// on Linux), a directory swapped for a
// link after the listing fails the copy instead of being read through.
//
// [MoveTree] copies and then deletes exactly the files it copied, each only if it
// is still the version that was read ([DeleteVersion]); what changed or appeared
// meanwhile stays and is named ([LeftError]), and only directories left empty are
// removed, each with a non-recursive delete. The rule: vfskit deletes only objects
// it has identified exactly, and says what it left.
//
// [DeleteVersion] deletes a file only if it is at a [Version] (size, modification
// time and the store's own identity: ETag, generation, inode), which an input
// stream tells ([StreamVersion], [VersionStater]); a changed file is kept and the
// error wraps [ErrChanged]. Backends that can check atomically implement
// [DeleteVersionFS]; elsewhere a Stat immediately before the delete is compared.
// A writer tells the version it published ([WrittenVersion], [WrittenVersioner]:
// the store's answer to the write), which is what an undo of a copy deletes; a
// stream that reads one version only ([VersionPinner]) spares a move the
// version before its read.
// [Path.Rel] says whether a path lies below a directory and where.
//
// # Tests
//
// [RegisterTest] registers a scheme for one test and unregisters it when the test
// ends, so the test can run again (go test -count=N); [Registry.Unregister] does it by
// hand. A registry from [NewRegistry] starts empty: the backends a program imports
// register on [DefaultRegistry], and asking a new registry for one of their schemes
// fails with an [UnsupportedSchemeError] that says to register it there. For a fresh
// file system per test, see memfs.NewTest.
package vfs

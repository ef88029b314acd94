// Package conformance is vfskit's shared behaviour suite: the executable form of
// the [vfs.FileSystem] contract. Every built-in backend runs it in its own tests,
// and an integrator who adds a scheme runs it on theirs, in the spirit of go-cloud's
// blob/drivertest and Hadoop's file system contract tests. It covers everything in
// Apache Flink's FileSystemBehaviorTestSuite and more: deletion, mkdirs, scheme and
// directories, create/open round trips up to 16 MiB, write modes, visibility only
// after Close, cancellation and abort, Seek and ReadAt, large sorted listings, Stat,
// rename, error sentinels, concurrent writers, special characters in names, and
// the io/fs adapter under testing/fstest.
//
// # Running it on a backend
//
// Write one test that hands the suite a [Harness]. New is called once per case and
// must return the file system and a directory on it, empty or missing, that the
// case owns:
//
//	func TestConformance(t *testing.T) {
//		fsys := myfs.New()
//		conformance.Run(t, conformance.Harness{
//			New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
//				dir := vfs.MustPath("my://bucket/conformance").Join(t.Name())
//				t.Cleanup(func() { _ = fsys.Delete(context.Background(), dir, true) })
//				return fsys, dir
//			},
//		})
//	}
//
// Each case is a subtest named Group/Case (for example Delete/NonEmptyDirNonRecursive),
// so "go test -run 'TestConformance/Rename/'" runs one group. Every case asserts: the
// suite fails on a backend that breaks the contract, and this package's own tests run
// it on deliberately broken file systems to prove it.
//
// # What is checked
//
// The groups, in the order they run:
//
//   - Scheme: URI, home and working directories carry the file system's scheme;
//     relative and unqualified paths resolve; paths of another scheme or authority,
//     and the zero Path, fail with fs.ErrInvalid and touch nothing.
//   - Exists, Stat: sizes, ModTime, IsDir and the status's path, for files, empty
//     files and directories; missing paths fail with fs.ErrNotExist.
//   - Delete: files, empty and non-empty directories, with and without recursion,
//     nested trees, missing paths, siblings sharing a name prefix. A non-recursive
//     Delete of a non-empty directory fails with vfs.ErrDirNotEmpty and deletes
//     nothing.
//   - DeleteVersion: vfs.DeleteVersion of the version a stream read deletes
//     it; of a file rewritten since (same size or not), deleted, or replaced by
//     a directory, it fails with vfs.ErrChanged and keeps what is there.
//   - Mkdirs: new, nested, existing; on and under a file (vfs.ErrNotDir).
//   - ReadWrite: round trips of empty, small, byte-by-byte and large files, and the
//     vfs helpers (WriteFile, ReadFile, Copy).
//   - Create: NoOverwrite (fs.ErrExist, original intact) and Overwrite; on a
//     directory (vfs.ErrIsDir); nothing visible before Close; a cancelled context or
//     Abort publishes nothing and leaves nothing behind; Write after Close fails.
//   - Open, Read: missing files and directories (at Open, or lazily at the first
//     read on an object store); Seek with every whence, ReadAt at many offsets,
//     behaviour at and past the end, testing/iotest.TestReader; a stream reads one
//     version (after the file is replaced or deleted, every read returns bytes of
//     the version it began with or fails with vfs.ErrChanged, never new bytes).
//   - List: complete and sorted with more than 1,000 entries, one level deep,
//     correct statuses; a file lists itself.
//   - Rename: files and whole trees; onto existing files and directories
//     (fs.ErrExist, both intact); missing sources (fs.ErrNotExist).
//   - Concurrent: writers on distinct files; racing NoOverwrite creators and
//     racing renames onto one target have exactly one winner.
//   - Names: spaces, unicode, %, +, #, ? and other characters URL builders mangle.
//   - FastPaths: the optional methods (vfs.ReadFile and vfs.WriteFile's fast
//     paths, server-side copy, vfs.DirSyncer's CreateUnsynced and SyncDir,
//     vfs.StatStream's status from the stream, vfs.OpenBeneathFS) agree
//     with the streams, byte for byte and in their write modes: what one writes
//     the other reads back. A layer that changes Create or Open but inherits a
//     fast path from layer.Base that goes around the change fails here.
//   - IOFS: vfs.IOFS over the test directory passes testing/fstest.TestFS.
//   - Recoverable: vfs.RecoverableWriter, where vfs.NewRecoverableWriter gives
//     one (skipped, saying so, where it fails with errors.ErrUnsupported).
//     Nothing is visible at the target before Commit; Commit publishes the
//     whole file, replacing an existing one while readers see the old file or
//     the new one; Recover, from a new writer, continues from exactly the bytes
//     persisted at its token (later bytes, persisted or not, are gone), also
//     past multipart part sizes; CleanupRecoverableState keeps what later
//     tokens need; CommitAfterRecovery commits once and then returns nil, and
//     never writes a file again once committed (even one replaced or deleted
//     since); tokens cut short, altered, confused (resume for commit) or of
//     another file system ([Harness.OtherFileSystem]) are refused with
//     fs.ErrInvalid; after commit and cleanup the directory holds only the
//     committed files ([Harness.RecoverableLeftovers] adds what a listing
//     cannot see).
//
// Every failure is checked with errors.Is against its sentinel and must be an
// *fs.PathError that names the path.
//
// # Object stores
//
// A file system whose Kind is [vfs.KindObjectStore] is held to the same contract
// except where the vfs package documentation allows object stores to differ, and only
// there: an empty directory need not exist after Mkdirs (directories are prefixes),
// Mkdirs on or under a file need not fail, Create on a path that is a directory
// need not fail (a store can hold the key "d" next to keys under "d/"), and an empty
// directory's Rename need not work. The cases that check these things are skipped,
// with a message saying why; everything else is checked on every kind, including
// the races: writers racing with NoOverwrite onto one path, and renames racing onto
// one destination file, have exactly one winner on object stores too (a
// conditional PUT and a conditional copy on S3).
//
// Open on an object store may be lazy, sending no request: Open of a missing file
// or of a directory may succeed, and then the first Read and the first ReadAt must
// each fail with an *fs.PathError naming the path that wraps fs.ErrNotExist (for a
// directory, vfs.ErrIsDir or fs.ErrNotExist). The cases that check that nothing is
// published (before Close, after a cancel or an Abort) accept that lazy error too,
// and check Stat, Exists and List as on every kind. Real file systems must fail at
// Open. Because each 1-byte ReadAt of testing/iotest's reader is a request on an
// object store, Read/IOTest runs there on files of 0, 1 and 4,097 bytes only, not
// also 70,001.
//
// # Cost
//
// By default the suite writes and reads back a 16 MiB file and lists a directory of
// 1,100 entries. An integrator whose test server is slow can shrink these with
// [Harness.LargeFileSize] and [Harness.ListSize]; a backend that passes only the
// shrunk cases has been tested less, and should run the defaults somewhere.
package conformance

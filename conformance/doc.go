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
// # Object stores
//
// A file system whose Kind is [vfs.KindObjectStore] is held to the same contract
// except where the vfs package documentation allows object stores to differ, and only
// there: an empty directory need not exist after Mkdirs (directories are prefixes),
// Mkdirs on or under a file need not fail, and Rename and NoOverwrite need not be
// atomic under concurrent callers. The cases that check these things are skipped,
// with a message saying why; everything else, including Rename's and NoOverwrite's
// sequential semantics, is checked on every kind.
//
// # Cost
//
// By default the suite writes and reads back a 16 MiB file and lists a directory of
// 1,100 entries. An integrator whose test server is slow can shrink these with
// [Harness.LargeFileSize] and [Harness.ListSize]; a backend that passes only the
// shrunk cases has been tested less, and should run the defaults somewhere.
package conformance

// Package cli implements the vfskit command line: file commands that work on
// every registered URI scheme (ls, stat, cat, cp, mv, rm, mkdir), checkpoint
// tools (checkpoints list, inspect, gc) and the demo job.
//
// Run executes one command line in-process and returns the exit status:
// ExitOK (0) on success, ExitFailure (1) when the operation failed, ExitUsage (2)
// for a usage error (unknown command or flag, wrong number of arguments, a bad
// URI or an unknown scheme). The package registers no file system itself: the
// main package blank-imports the backends, as database/sql programs do with
// drivers.
package cli

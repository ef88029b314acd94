// Package cli implements the vfskit command line: file commands that work on
// every registered URI scheme (ls, stat, cat, cp, mv, rm, mkdir), checkpoint
// tools (checkpoints list, inspect, gc) and the demo job.
//
// Run executes one command line in-process and returns the exit status:
// ExitOK (0) on success, ExitFailure (1) when the operation failed, ExitUsage (2)
// for a usage error (no command, unknown command or flag, wrong number of
// arguments, a bad URI or an unknown scheme), ExitInterrupted (130) when its
// context was cancelled (Ctrl-C). In cat and cp, "-" is standard input or
// output. The package registers no file system itself: the
// main package blank-imports the backends, as database/sql programs do with
// drivers.
package cli

// Package cli is the vfskit command line as a library: file commands that work
// on every URI scheme the command line serves (ls, stat, cat, cp, mv, rm,
// mkdir, clean-temp), checkpoint tools (checkpoints list, inspect, verify,
// audit, gc, relocate, and state, offsets and set-offsets for operator state
// and source positions) and the demo job; cmd/vfskit's doc comment lists their
// usage. An integrator builds their own vfskit binary with extra schemes in a
// few lines:
//
//	func main() {
//		cli.Main(cli.WithSchemes(clis3.Schemes()), cli.WithScheme("myfs", myfs.Factory))
//	}
//
// Every command line builds a vfs.Registry of its own that serves file://
// (and plain paths), memory:// and the schemes the Options add (WithSchemes
// with the sets of packages clis3, cligcs and cliazblob, or an integrator's
// own; WithScheme); it changes neither vfs's default registry nor a backend's
// process-wide settings (the S3 flags configure that command line's s3:// file
// systems only). Package cli itself links no cloud SDK: a program links the
// SDKs of the sets it passes, and no other.
//
// Run executes one command line in-process and returns the exit status:
// ExitOK (0) on success, ExitFailure (1) when the operation failed, ExitUsage (2)
// for a usage error (no command, unknown command or flag, wrong number of
// arguments, a bad URI or an unknown scheme), ExitInterrupted (130) when its
// context was cancelled (Ctrl-C). Main runs the process's command line and
// exits. In cat and cp, "-" is standard input or output.
package cli

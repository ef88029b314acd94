// Command vfskit works with files on any file system vfskit supports (local
// disk, S3 and S3-compatible stores, memory), inspects and cleans up Flink-style
// checkpoints, and runs a demo job that checkpoints, crashes and recovers with
// exactly-once results.
//
// Usage:
//
//	vfskit ls [-l] [-R [-L]] URI
//	vfskit stat URI
//	vfskit cat URI...
//	vfskit cp [-r [-L]] [--overwrite] SRC DST
//	vfskit mv SRC DST
//	vfskit rm [-r [--no-preserve-root]] URI...
//	vfskit mkdir URI...
//	vfskit checkpoints list DIR
//	vfskit checkpoints inspect [--json] POINTER
//	vfskit checkpoints gc DIR --retain N [--dry-run]
//	vfskit demo [flags]
//
// Every command has --help. The exit status is 0 on success, 1 when the
// operation failed and 2 for a usage error (unknown command or flag, wrong
// arguments, a bad URI or an unknown scheme).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/vfskit/vfskit/backends/local" // file:// and plain paths
	_ "github.com/vfskit/vfskit/backends/memfs" // memory://
	_ "github.com/vfskit/vfskit/backends/s3"    // s3://, s3a://, s3p://

	"github.com/vfskit/vfskit/cmd/vfskit/internal/cli"
)

func main() {
	// The first Ctrl-C (or SIGTERM) cancels the command, which cleans up (no
	// partial file is published) and exits 1; a second one kills the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	code := cli.Run(ctx, os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}

// Command vfskit works with files on any file system vfskit supports (local
// disk, S3 and S3-compatible stores, memory), inspects and cleans up Flink-style
// checkpoints, and runs a demo job that checkpoints, crashes and recovers with
// exactly-once results.
//
// Usage:
//
//	vfskit ls [-l] [-R [-L]] [--json] URI...
//	vfskit stat [--json] URI...
//	vfskit cat URI...              ("-" is standard input)
//	vfskit cp [-r [-L]] [-n] SRC DST  ("-" is standard input or output)
//	vfskit mv SRC DST
//	vfskit rm [-r [--no-preserve-root]] URI...
//	vfskit mkdir URI...
//	vfskit checkpoints list DIR
//	vfskit checkpoints inspect [--json] POINTER
//	vfskit checkpoints gc DIR --retain N [--dry-run]
//	vfskit demo [flags]
//	vfskit completion bash|zsh|fish|powershell
//	vfskit --version
//
// Every command has --help. The exit status is 0 on success, 1 when the
// operation failed, 2 for a usage error (no command, unknown command or flag,
// wrong arguments, a bad URI or an unknown scheme) and 130 when interrupted
// with Ctrl-C (143 for SIGTERM).
package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	_ "github.com/vfskit/vfskit/backends/azblob" // azblob://
	_ "github.com/vfskit/vfskit/backends/gcs"    // gs://
	_ "github.com/vfskit/vfskit/backends/local"  // file:// and plain paths
	_ "github.com/vfskit/vfskit/backends/memfs"  // memory://
	_ "github.com/vfskit/vfskit/backends/s3"     // s3://, s3a://, s3p://

	"github.com/vfskit/vfskit/cmd/vfskit/internal/cli"
)

func main() {
	// The first Ctrl-C (or SIGTERM) cancels the command, which cleans up (no
	// partial file is published) and exits 128 + the signal's number (130 for
	// Ctrl-C, 143 for SIGTERM), as shells report a process a signal stopped; a
	// second one kills the process.
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var received atomic.Int32
	go func() {
		s, ok := (<-sigs).(syscall.Signal)
		signal.Stop(sigs)
		if ok {
			received.Store(int32(s))
			cancel(errors.New(s.String()))
		}
	}()
	code := cli.Run(ctx, os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	if n := received.Load(); code == cli.ExitInterrupted && n != 0 {
		code = 128 + int(n)
	}
	os.Exit(code)
}

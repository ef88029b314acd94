package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// Main runs the command line of the process (os.Args) with opts, on the
// process's standard input, output and error, and exits with its status (see
// Run). The first Ctrl-C (or SIGTERM) cancels the command, which cleans up (no
// partial file is published) and exits 128 + the signal's number (130 for
// Ctrl-C, 143 for SIGTERM), as shells report a process a signal stopped; a
// second one kills the process. A program's main can be just this call:
//
//	func main() { cli.Main(cli.WithS3(), cli.WithScheme("myfs", myfs.Factory)) }
func Main(opts ...Option) {
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
	code := Run(ctx, os.Args[1:], Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}, opts...)
	if n := received.Load(); code == ExitInterrupted && n != 0 {
		code = 128 + int(n)
	}
	os.Exit(code)
}

package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/vfskit/vfskit/vfs"
)

// Bounds of the exit after a signal (see Main).
const (
	// InterruptGrace is how long Main lets a command that a signal cancelled
	// return on its own before it exits without it: a command blocked in a
	// call that no context reaches (opening or reading a FIFO nobody writes)
	// ends this long after the signal.
	InterruptGrace = 2 * time.Second
	// CleanupTimeout bounds the wait, after a signal, for the cleanups the
	// cancelled streams began (vfs.WaitCleanups: aborting multipart uploads,
	// removing temporary files).
	CleanupTimeout = 30 * time.Second
)

// Main runs the command line of the process (os.Args) with opts, on the
// process's standard input, output and error, and exits with its status (see
// Run). The first Ctrl-C (or SIGTERM) cancels the command, which cleans up (no
// partial file is published, multipart uploads in flight are aborted) and
// exits 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM), as shells
// report a process a signal stopped. The first signal always ends the
// process: a command still running InterruptGrace after it (blocked where no
// context reaches, such as a FIFO nobody writes) is left behind once the
// cleanups its streams began are done (at most CleanupTimeout). A second
// signal kills the process at once. A program's main can be just this call:
//
//	func main() { cli.Main(cli.WithSchemes(clis3.Schemes()), cli.WithScheme("myfs", myfs.Factory)) }
func Main(opts ...Option) {
	os.Exit(run(os.Args[1:], Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}, opts...))
}

// run is Main without the exit.
func run(args []string, stdio Stdio, opts ...Option) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan int, 1)
	go func() { done <- Run(ctx, args, stdio, opts...) }()
	var sig os.Signal
	select {
	case code := <-done:
		signal.Stop(sigs)
		return code
	case sig = <-sigs:
	}
	// The default action again: a second signal kills the process.
	signal.Stop(sigs)
	n, _ := sig.(syscall.Signal)
	cancel(errors.New(sig.String()))
	code := ExitInterrupted
	select {
	case code = <-done:
	case <-time.After(InterruptGrace):
		printError(stdio.Err, errors.New("interrupted ("+sig.String()+"): the command is blocked where it cannot be cancelled; exiting without it"))
	}
	wait, stop := context.WithTimeout(context.Background(), CleanupTimeout)
	defer stop()
	_ = vfs.WaitCleanups(wait)
	if code == ExitInterrupted && n != 0 {
		code = 128 + int(n)
	}
	return code
}

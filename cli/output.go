package cli

import (
	"errors"
	"io"
	"io/fs"
	"sync"
	"syscall"
)

// output is a writer that stops at its first failure: the write that fails
// returns an *outputError, and so does every later write, without reaching
// the writer below again. Run puts one in front of standard output, so a
// command that writes after a broken pipe or a full disk fails fast instead
// of walking on, and its error is reported once (see outputFailure).
type output struct {
	mu  sync.Mutex
	w   io.Writer
	err *outputError
}

// outputError is a failed write to standard output.
type outputError struct {
	// Err is the writer's error, without the file name os.File adds.
	Err error
}

// Error says that standard output could not be written, and why.
func (e *outputError) Error() string { return "write error on standard output: " + e.Err.Error() }

// Unwrap returns the writer's error.
func (e *outputError) Unwrap() error { return e.Err }

// Write writes p, or fails with the first failure's error once there was one.
func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		var pe *fs.PathError // os.File's "write /dev/stdout: ..."
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if o.err = outputFailure(err); o.err == nil { // an output over an output: once
			o.err = &outputError{Err: err}
		}
		return n, o.err
	}
	return n, nil
}

// failed returns the first failure (nil when there was none).
func (o *output) failed() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		return nil
	}
	return o.err
}

// outputFailed returns the failure of the command line's standard output
// (nil when none): commands that do more than print (gc deletes) check it
// between steps.
func (a *app) outputFailed() error {
	if o, ok := a.stdio.Out.(*output); ok {
		return o.failed()
	}
	return nil
}

// outputFailure returns the output error err holds (nil when none): a
// command that failed because its output could not be written reports that
// alone, whatever else it joined to it.
func outputFailure(err error) *outputError {
	var oe *outputError
	if errors.As(err, &oe) {
		return oe
	}
	return nil
}

// brokenPipe reports whether err is a write to a pipe whose reader is gone
// (vfskit ls ... | head): like coreutils, the command then exits with a
// failure status without a message.
func brokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }

package cli

import (
	"context"
	"io"
)

// stdin returns standard input as a reader that gives up as soon as ctx is
// done, even while a Read is blocked (a terminal or an idle pipe never returns
// from Read for a Ctrl-C): the command then fails with ctx's error, publishes
// nothing and exits, abandoning the blocked Read.
func (a *app) stdin(ctx context.Context) io.Reader {
	return &ctxReader{ctx: ctx, r: a.stdio.In, done: make(chan readResult, 1)}
}

// ctxReader reads r in a goroutine, one Read at a time, into a buffer of its
// own (so that an abandoned Read never writes into the caller's).
type ctxReader struct {
	ctx     context.Context
	r       io.Reader
	done    chan readResult
	pending bool   // a Read of r is running
	buf     []byte // what the running Read reads into
	left    []byte // bytes read but not yet returned
	err     error  // the error that came with left
}

type readResult struct {
	n   int
	err error
}

// Read returns bytes already read first, then waits for the running Read of r
// (starting one when none runs) or for ctx to be done.
func (c *ctxReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if len(c.left) > 0 {
		n := copy(b, c.left)
		c.left = c.left[n:]
		if len(c.left) == 0 {
			return n, c.err
		}
		return n, nil
	}
	if c.err != nil {
		return 0, c.err
	}
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if !c.pending {
		if cap(c.buf) < len(b) {
			c.buf = make([]byte, len(b))
		}
		buf := c.buf[:len(b)]
		c.pending = true
		go func() {
			n, err := c.r.Read(buf)
			c.done <- readResult{n, err}
		}()
	}
	select {
	case res := <-c.done:
		c.pending = false
		c.left, c.err = c.buf[:res.n], res.err
		if res.n == 0 && res.err == nil {
			return 0, nil // as r did; the caller reads again
		}
		return c.Read(b)
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	}
}

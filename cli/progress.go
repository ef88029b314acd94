package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressThreshold is the transfer size from which cp and mv draw a progress
// bar (on a terminal only).
const progressThreshold = 4 << 20

// terminal reports whether the error stream is an interactive terminal.
func (a *app) terminal() bool {
	if a.stdio.Terminal != nil {
		return a.stdio.Terminal()
	}
	return isTerminal(a.stdio.Err)
}

// outTerminal reports whether the output stream is an interactive terminal.
func (a *app) outTerminal() bool {
	if a.stdio.OutTerminal != nil {
		return a.stdio.OutTerminal()
	}
	return isTerminal(a.stdio.Out)
}

// isTerminal reports whether w is a file connected to a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// byteProgress counts transferred bytes and, on a terminal, draws a bar with the
// bytes done, the total and the rate. The zero-cost no-op form is used when the
// output is not a terminal or the transfer is small.
type byteProgress struct {
	bar *progressbar.ProgressBar
}

// newByteProgress returns a progress display for a transfer of total bytes.
func (a *app) newByteProgress(description string, total int64) *byteProgress {
	if total < progressThreshold || !a.terminal() {
		return &byteProgress{}
	}
	w := a.stdio.Err
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(description),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowTotalBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionUseIECUnits(true),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	)
	return &byteProgress{bar: bar}
}

// add records n more bytes.
func (p *byteProgress) add(n int64) {
	if p.bar != nil {
		_ = p.bar.Add64(n)
	}
}

// finish ends the display: a transfer that succeeded (err == nil) leaves the
// completed bar; one that failed clears it, so that a bar never claims bytes
// that were not copied and the error that follows stands on its own line.
func (p *byteProgress) finish(err error) {
	switch {
	case p.bar == nil:
	case err == nil:
		_ = p.bar.Finish()
	default:
		_ = p.bar.Clear()
	}
}

// reader wraps r so that every byte read is counted.
func (p *byteProgress) reader(r io.Reader) io.Reader {
	if p.bar == nil {
		return r
	}
	return &countingReader{r: r, p: p}
}

type countingReader struct {
	r io.Reader
	p *byteProgress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.add(int64(n))
	return n, err
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

// forEach resolves every argument first (so that a bad URI anywhere on the
// command line is a usage error that changes nothing), then runs f on each
// location in order and carries on past failures, as rm, cat and mkdir do on
// Unix. It returns the failures joined (errors.Join); Run prints each on its
// own line.
func (a *app) forEach(ctx context.Context, argv []string, f func(location) error) error {
	return a.forEachArg(ctx, argv, func(_ string, loc location) error { return f(loc) })
}

// forEachArg is forEach that also hands f the argument as typed, for checks
// that look at its spelling (rm refuses "." and "..").
func (a *app) forEachArg(ctx context.Context, argv []string, f func(arg string, loc location) error) error {
	locs, err := a.resolveAll(ctx, argv)
	if err != nil {
		return err
	}
	return eachLocation(ctx, argv, locs, f)
}

// forEachStdio is forEach where a "-" argument is standard input or output
// (the zero location, see resolveStdio).
func (a *app) forEachStdio(ctx context.Context, argv []string, f func(location) error) error {
	locs, err := a.resolveStdio(ctx, argv)
	if err != nil {
		return err
	}
	return eachLocation(ctx, argv, locs, func(_ string, loc location) error { return f(loc) })
}

// eachLocation runs f on every resolved argument in order, carrying on past
// failures (see forEach) except a failure to write standard output.
func eachLocation(ctx context.Context, argv []string, locs []location, f func(arg string, loc location) error) error {
	var errs []error
	for i, loc := range locs {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		if err := f(argv[i], loc); err != nil {
			errs = append(errs, err)
			if outputFailure(err) != nil { // nothing more can be shown
				break
			}
		}
	}
	return errors.Join(errs...)
}

// printError writes err to w prefixed with "vfskit: ", one line per error when
// err joins several (see forEach), with every secret hidden (vfs.Redact) and
// control characters escaped (a name holding a newline or an escape sequence
// neither splits the line nor reaches the terminal raw). A message that lists
// more on lines of their own (a newline followed by two spaces, as
// checkpointstorage's refusals do) is printed as those lines, never with a
// literal "\n".
func printError(w io.Writer, err error) {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			printError(w, e)
		}
		return
	}
	lines := strings.Split(vfs.Redact(err.Error()), "\n  ")
	fmt.Fprintf(w, "vfskit: %s\n", quoteName(lines[0], quoteMessage))
	for _, l := range lines[1:] {
		fmt.Fprintf(w, "  %s\n", quoteName(l, quoteMessage))
	}
}

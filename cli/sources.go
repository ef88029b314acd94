package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/vfskit/vfskit/vfs"
)

// intoDirectory checks the destination of cp or mv (op) given several
// sources (SRC... DIR): as coreutils, it must be an existing directory, each
// source going into it under its own name. On an object store, where a
// directory is only a prefix (mkdir writes nothing), a DIR written with a
// trailing "/" is one even while no key starts with it, as for one source.
func intoDirectory(ctx context.Context, op string, dst location) error {
	if dst.isStdio() || dst.itself {
		return usageErr(fmt.Errorf("%s: several sources go into a directory: the last argument must name one, without -T", op))
	}
	st, err := dst.fsys.Stat(ctx, dst.path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && dst.dir && dst.fsys.Kind() == vfs.KindObjectStore:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return vfs.NewPathError(op, dst.path, fmt.Errorf("target directory: %w (several sources go into an existing directory)", fs.ErrNotExist))
	case err != nil:
		return err
	case !st.IsDir:
		return vfs.NewPathError(op, dst.path, fmt.Errorf("target: %w (several sources go into an existing directory)", vfs.ErrNotDir))
	}
	return nil
}

// eachSource runs one for each source in turn: one that fails is reported
// and the others still go, as coreutils does; the error joins every failure.
// An interrupt (ctx cancelled) stops it.
func eachSource(ctx context.Context, srcs []location, one func(i int, src location) error) error {
	var errs []error
	for i, src := range srcs {
		if err := one(i, src); err != nil {
			errs = append(errs, err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	return errors.Join(errs...)
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

// location is a path together with the file system that serves it.
type location struct {
	fsys vfs.FileSystem
	path vfs.Path // absolute and qualified with fsys's scheme and authority
	// dir says that the argument ended in "/" and so names a directory (a Path
	// drops the trailing slash): "cp a.bin s3://bucket/new/" copies into new/.
	dir bool
}

// String returns the qualified path.
func (l location) String() string { return l.path.String() }

// join returns the location of rel (a '/'-separated relative path) below l.
func (l location) join(rel string) location {
	if rel == "" || rel == "." {
		return l
	}
	return location{fsys: l.fsys, path: l.path.Join(strings.Split(rel, "/")...)}
}

// sameFileSystem reports whether a and b are on the same file system instance.
func (l location) sameFileSystem(o location) bool {
	return l.fsys == o.fsys || l.fsys.URI().String() == o.fsys.URI().String()
}

// missing puts a missing path in the command's terms: an error that says loc
// does not exist (from a Stat the command made first) is reported under op,
// with the backend's wording ("rm file:///x: no such file or directory" rather
// than "stat file:///x: ..."). Other errors are returned as they are.
func missing(op string, loc location, err error) error {
	var pe *fs.PathError
	if errors.Is(err, fs.ErrNotExist) && errors.As(err, &pe) {
		return vfs.NewPathError(op, loc.path, pe.Err)
	}
	return err
}

// resolve turns a command-line argument (a URI such as s3://bucket/key or
// memory://demo/x, or a plain local path) into a location. A malformed URI or an
// unknown scheme is a usage error naming the argument. A query ("?region=...")
// is handed to the file system's factory and is not part of the path.
func resolve(ctx context.Context, arg string) (location, error) {
	if arg == "" {
		return location{}, usageErr(fmt.Errorf("empty URI: expected a path or a URI such as s3://bucket/key, file:///tmp/x or memory://demo/x"))
	}
	base, _, _ := strings.Cut(arg, "?")
	p, err := vfs.NewPath(base)
	if err != nil {
		return location{}, usageErr(fmt.Errorf("bad URI %q: %w", arg, err))
	}
	fsys, err := vfs.Get(ctx, arg)
	if err != nil {
		if isInvalid(err) {
			return location{}, usageErr(fmt.Errorf("bad URI %q: %w", arg, err))
		}
		return location{}, err
	}
	return location{fsys: fsys, path: p.MakeQualified(fsys), dir: strings.HasSuffix(base, "/")}, nil
}

// resolveAll resolves every argument (see resolve) and fails on the first one
// that does not resolve, before any command touches a file.
func resolveAll(ctx context.Context, argv []string) ([]location, error) {
	locs := make([]location, len(argv))
	for i, arg := range argv {
		loc, err := resolve(ctx, arg)
		if err != nil {
			return nil, err
		}
		locs[i] = loc
	}
	return locs, nil
}

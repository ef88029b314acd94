package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
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

// join returns the location of rel (a '/'-separated relative path whose
// segments are names exactly as listed) below l.
func (l location) join(rel string) location {
	if rel == "" || rel == "." {
		return l
	}
	return location{fsys: l.fsys, path: descend(l.path, strings.Split(rel, "/"))}
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

// argRef is a command-line argument taken apart (see parseArg).
type argRef struct {
	scheme    string   // "" for a plain path
	authority string   // bucket, host, ...; "" when none
	query     string   // parameters for the file system's factory; "" when none
	abs       bool     // a plain path that starts at "/"; URIs always do
	segs      []string // the path's segments, exactly as given; no empty ones
	dir       bool     // the argument's path ended in "/"
}

// parseArg takes a command-line argument apart, exactly: the path is split on
// '/' and on nothing else, so '?', '#', '%', '\', spaces and any other
// character stay part of the name they are in. An argument is a URI only when
// it starts with "scheme://", or "scheme:/" for a registered scheme (isScheme)
// without authority ("file:/tmp/x"); "scheme:" followed by anything else is an
// error for a registered scheme ("s3:relative": write ./s3:relative for a local
// file). Anything else is a plain path on the default file system (the local
// disk). A query is recognized only in a URI whose
// scheme declared query parameters (queryParams), and only when every
// parameter after the '?' is a declared one ("s3://b/x?region=eu-west-1");
// otherwise the '?' belongs to the name ("s3://b/results?old",
// "file:///tmp/a?b", "a?b"). A "." or ".." segment is left for descend.
func parseArg(arg string, isScheme func(scheme string) bool, queryParams func(scheme string) []string) (argRef, error) {
	if arg == "" {
		return argRef{}, errors.New("empty URI: expected a path or a URI such as s3://bucket/key, file:///tmp/x or memory://demo/x")
	}
	if strings.IndexByte(arg, 0) >= 0 {
		return argRef{}, fmt.Errorf("argument %q contains a NUL byte, which no file name can hold", arg)
	}
	var r argRef
	pathPart := arg
	scheme, rest, colon := strings.Cut(arg, ":")
	switch {
	case colon && validScheme(scheme) && strings.HasPrefix(rest, "//"):
		r.scheme = strings.ToLower(scheme)
		rest = rest[2:]
		if params := queryParams(r.scheme); len(params) > 0 {
			rest, r.query = cutQuery(rest, params)
		}
		r.authority, pathPart, _ = strings.Cut(rest, "/")
		pathPart = "/" + pathPart
		if i := strings.IndexAny(r.authority, "?#\\ \t\n"); i >= 0 {
			return argRef{}, fmt.Errorf("bad URI %q: the authority %q cannot hold %q (expected %s://AUTHORITY/path, with '/', '?', '#' and spaces in a user name or password percent-encoded)",
				arg, r.authority, r.authority[i], r.scheme)
		}
	case colon && validScheme(scheme) && isScheme(strings.ToLower(scheme)) && strings.HasPrefix(rest, "/"):
		r.scheme, pathPart = strings.ToLower(scheme), rest // "file:/tmp/x": no authority
	case colon && validScheme(scheme) && isScheme(strings.ToLower(scheme)):
		return argRef{}, fmt.Errorf("bad URI %q: expected %s://AUTHORITY/path or %s:/path (for a local file named like this, write ./%s)",
			arg, scheme, scheme, arg)
	}
	r.abs = strings.HasPrefix(pathPart, "/")
	r.dir = strings.HasSuffix(pathPart, "/")
	for _, s := range strings.Split(pathPart, "/") {
		if s != "" {
			r.segs = append(r.segs, s)
		}
	}
	return r, nil
}

// validScheme reports whether s is a URI scheme: a letter followed by letters,
// digits, '+', '-' or '.' (as net/url reads one).
func validScheme(s string) bool {
	u, err := url.Parse(s + ":")
	return err == nil && u.Scheme == strings.ToLower(s) && s != ""
}

// cutQuery splits rest (what follows "scheme://") at the first '?' after which
// everything is a well-formed list of declared parameters ("region=eu&profile=p").
// Without such a '?', the whole of rest is the authority and path.
func cutQuery(rest string, params []string) (string, string) {
	for i := 0; i < len(rest); i++ {
		if rest[i] == '?' && isDeclaredQuery(rest[i+1:], params) {
			return rest[:i], rest[i+1:]
		}
	}
	return rest, ""
}

// isDeclaredQuery reports whether q is "name=value" pairs joined by '&', each
// name one of params and each value well-formed percent-encoding.
func isDeclaredQuery(q string, params []string) bool {
	if q == "" {
		return false
	}
	for _, kv := range strings.Split(q, "&") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !slices.Contains(params, k) {
			return false
		}
		if _, err := url.QueryUnescape(v); err != nil {
			return false
		}
	}
	return true
}

// descend returns p with segs appended one by one, each as one exact name; "."
// is p itself and ".." its parent (the root's parent is the root).
func descend(p vfs.Path, segs []string) vfs.Path {
	for _, s := range segs {
		switch s {
		case "", ".":
		case "..":
			if parent := p.Parent(); !parent.IsZero() {
				p = parent
			}
		default:
			p = p.Join(s)
		}
	}
	return p
}

// resolve turns a command-line argument (a URI such as s3://bucket/key or
// memory://demo/x, or a plain local path) into a location, naming exactly the
// object the argument spells (see parseArg). A malformed argument or an unknown
// scheme is a usage error naming the argument. A query ("?region=...") is
// handed to the file system's factory and is not part of the path.
func (a *app) resolve(ctx context.Context, arg string) (location, error) {
	reg := a.reg
	r, err := parseArg(arg, func(s string) bool { return slices.Contains(reg.Schemes(), s) }, reg.QueryParameters)
	if err != nil {
		return location{}, usageErr(err)
	}
	var root vfs.Path
	if r.scheme != "" {
		root, err = vfs.NewPath(r.scheme + "://" + r.authority + "/")
		if err != nil {
			return location{}, usageErr(fmt.Errorf("bad URI %q: %w", arg, err))
		}
	} else {
		root = reg.DefaultScheme()
	}
	uri := root.String()
	if r.query != "" {
		uri += "?" + r.query
	}
	fsys, err := reg.Get(ctx, uri)
	if err != nil {
		if isInvalid(err) {
			return location{}, usageErr(fmt.Errorf("bad URI %q: %w", arg, err))
		}
		return location{}, err
	}
	base := root.MakeQualified(fsys)
	if !r.abs {
		base = fsys.WorkingDirectory().MakeQualified(fsys)
	}
	p := descend(base, r.segs)
	if first := strings.SplitN(strings.TrimPrefix(p.Path(), "/"), "/", 2)[0]; !p.IsAbsolute() || isDrive(first) {
		// vfs.Path keeps Flink's Windows-drive rule: "/A:0" is the drive A: and
		// the relative path "0", "/A:" is a drive root "/A:/": either would
		// name another object.
		return location{}, usageErr(fmt.Errorf("cannot name %q exactly: its first name %q reads as a Windows drive", arg, first))
	}
	return location{fsys: fsys, path: p, dir: r.dir}, nil
}

// isDrive reports whether a first path segment starts like a Windows drive:
// a letter and ':'.
func isDrive(seg string) bool {
	return len(seg) >= 2 && seg[1] == ':' && (seg[0] >= 'a' && seg[0] <= 'z' || seg[0] >= 'A' && seg[0] <= 'Z')
}

// resolveAll resolves every argument (see resolve) and fails on the first one
// that does not resolve, before any command touches a file.
func (a *app) resolveAll(ctx context.Context, argv []string) ([]location, error) {
	return a.resolveEach(ctx, argv, false)
}

// stdioArg is the argument that names standard input (cat, cp's source) or
// standard output (cp's destination); a local file named "-" is "./-".
const stdioArg = "-"

// isStdio reports whether loc is the "-" argument (see resolveStdio).
func (l location) isStdio() bool { return l.fsys == nil }

// resolveStdio is resolveAll for commands that read or write "-" as standard
// input or output: a "-" argument becomes the zero location (isStdio).
func (a *app) resolveStdio(ctx context.Context, argv []string) ([]location, error) {
	return a.resolveEach(ctx, argv, true)
}

func (a *app) resolveEach(ctx context.Context, argv []string, stdio bool) ([]location, error) {
	locs := make([]location, len(argv))
	for i, arg := range argv {
		if stdio && arg == stdioArg {
			continue
		}
		loc, err := a.resolve(ctx, arg)
		if err != nil {
			return nil, err
		}
		locs[i] = loc
	}
	return locs, nil
}

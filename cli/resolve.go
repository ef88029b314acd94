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
	// itself says that the location names the destination itself even when
	// it is an existing directory, never a directory to copy into (cp -T).
	itself bool
	// last is the argument's last path segment as typed (after any query was
	// split off, trailing slashes ignored): "." or ".." for "x/..", which
	// rm and mv refuse; "" for a root.
	last string
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
	return vfs.SameFileSystem(l.fsys, o.fsys)
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
	// odd is the first segment of the path that names no key exactly on an
	// object store: "" (an empty segment, "a//b"), "." or ".."; "" with
	// hasOdd false when there is none. A trailing "/" is not one.
	odd    string
	hasOdd bool
}

// parseArg takes a command-line argument apart, exactly: the path is split on
// '/' and on nothing else, so '?', '#', '%', ”, spaces and any other
// character stay part of the name they are in. An argument is a URI only when
// it starts with "scheme://", or "scheme:/" for a registered scheme (isScheme)
// without authority ("file:/tmp/x"); "scheme:" followed by anything else is an
// error for a registered scheme ("s3:relative": write ./s3:relative for a local
// file). Anything else is a plain path on the default file system (the local
// disk).
//
// A query can only come right after the authority, before the path:
// "s3://bucket?region=eu-west-1/dir/key", for a scheme that declared query
// parameters (queryParams) and only when every parameter in it is a declared
// one (a '/' in a value is written %2F). Everything from the first '/' after
// "scheme://" on is the path, so a name a listing shows ("s3://b/x/report?region=eu")
// is never read as a query. A "." or ".." segment is left for descend; odd
// records the first one (or an empty segment).
func parseArg(arg string, isScheme func(scheme string) bool, queryParams func(scheme string) []string) (argRef, error) {
	if arg == "" {
		return argRef{}, errors.New("empty URI: expected a path or a URI such as s3://bucket/key, file:///tmp/x or memory://demo/x")
	}
	if strings.IndexByte(arg, 0) >= 0 {
		return argRef{}, fmt.Errorf("argument %q contains a NUL byte, which no file name can hold", vfs.RedactURI(arg))
	}
	var r argRef
	pathPart := arg
	scheme, rest, colon := strings.Cut(arg, ":")
	switch {
	case colon && validScheme(scheme) && strings.HasPrefix(rest, "//"):
		r.scheme = strings.ToLower(scheme)
		head, tail, _ := strings.Cut(rest[2:], "/")
		// (tail is the path without its leading '/'.)
		r.authority, pathPart = head, "/"+tail
		if i := strings.IndexByte(head, '?'); i >= 0 {
			if params := queryParams(r.scheme); len(params) > 0 && isDeclaredQuery(head[i+1:], params) {
				r.authority, r.query = head[:i], head[i+1:]
			}
		}
		if c := strings.IndexByte(r.authority, ':'); c >= 0 && !strings.Contains(r.authority, "@") && !vfs.IsPort(r.authority[c+1:]) && strings.Contains(tail, "@") {
			return argRef{}, rawUserInfo(arg)
		}
		if i := strings.IndexAny(r.authority, "?#\\ \t\n"); i >= 0 {
			if i < strings.LastIndexByte(r.authority, '@') {
				return argRef{}, rawUserInfo(arg)
			}
			return argRef{}, fmt.Errorf("bad URI %q: the authority %q cannot hold %q (expected %s://AUTHORITY/path, or %s://AUTHORITY?QUERY/path with declared query parameters)",
				vfs.RedactURI(arg), vfs.RedactAuthority(r.authority), r.authority[i], r.scheme, r.scheme)
		}
	case colon && validScheme(scheme) && isScheme(strings.ToLower(scheme)) && strings.HasPrefix(rest, "/"):
		r.scheme, pathPart = strings.ToLower(scheme), rest // "file:/tmp/x": no authority
	case colon && validScheme(scheme) && isScheme(strings.ToLower(scheme)):
		red := vfs.RedactURI(arg)
		return argRef{}, fmt.Errorf("bad URI %q: expected %s://AUTHORITY/path or %s:/path (for a local file named like this, write ./%s)",
			red, scheme, scheme, red)
	}
	r.abs = strings.HasPrefix(pathPart, "/")
	r.dir = strings.HasSuffix(pathPart, "/")
	all := strings.Split(pathPart, "/")
	for i, s := range all {
		switch {
		case s == "" && (i == 0 && r.abs || i == len(all)-1):
		case s == "" || s == "." || s == "..":
			if !r.hasOdd {
				r.odd, r.hasOdd = s, true
			}
		}
		if s != "" {
			r.segs = append(r.segs, s)
		}
	}
	return r, nil
}

// rawUserInfo is the error for an argument whose user info is not
// percent-encoded (quoted redacted, naming no character of it).
func rawUserInfo(arg string) error {
	return fmt.Errorf("bad URI %q: the user info of its authority holds a character that must be percent-encoded ('/', '?', '#', '\\', spaces)", vfs.RedactURI(arg))
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
// scheme is a usage error naming the argument (redacted). A query
// ("s3://b?region=eu-west-1/key") is handed to the file system's factory and is
// not part of the path. On an object store, an argument whose path has an
// empty, "." or ".." segment is refused: the key it spells is not the path
// descend would make of it.
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
			return location{}, usageErr(fmt.Errorf("bad URI %q: %w", vfs.RedactURI(arg), err))
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
			return location{}, usageErr(fmt.Errorf("bad URI %q: %w", vfs.RedactURI(arg), err))
		}
		return location{}, a.unknownScheme(err)
	}
	if r.hasOdd && fsys.Kind() == vfs.KindObjectStore {
		return location{}, usageErr(fmt.Errorf("cannot name %q exactly: it has the segment %q, and an object store keeps empty, '.' and '..' segments in keys as they are, so it would name another object (vfskit names no such key; write the path without it)",
			vfs.RedactURI(arg), r.odd))
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
		return location{}, usageErr(fmt.Errorf("cannot name %q exactly: its first name %q reads as a Windows drive", vfs.RedactURI(arg), first))
	}
	loc := location{fsys: fsys, path: p, dir: r.dir}
	if len(r.segs) > 0 {
		loc.last = r.segs[len(r.segs)-1]
	}
	return loc, nil
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

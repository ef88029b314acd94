package vfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"strings"
)

// Path names a file or directory: an optional scheme, an optional authority and a
// normalized, '/'-separated path. It follows Apache Flink's Path:
//
//   - "\" becomes "/", repeated "/" collapse, and a trailing "/" is dropped except
//     for the root;
//   - "." and ".." segments resolve ("/.." is "/"; a relative path keeps leading "..");
//   - a Windows drive "C:/x" (or "C:\x") becomes "/C:/x";
//   - "?" and "#" are ordinary characters: a Path has no query or fragment;
//   - the scheme is lower-cased; an empty authority ("file:///x") is no authority.
//
// The zero Path is "no path" (Flink's null). Path is a comparable value: equal paths
// are == and work as map keys. String returns a form that NewPath parses back to the
// same Path.
type Path struct {
	scheme    string
	authority string
	path      string
}

// NewPath parses s like Flink's new Path(String). The empty string, a scheme with
// invalid characters and a scheme followed by a relative path ("s3:x") are errors
// that errors.Is fs.ErrInvalid.
func NewPath(s string) (Path, error) {
	if s == "" {
		return Path{}, &fs.PathError{Op: "parse", Path: s, Err: fmt.Errorf("%w: can not create a Path from an empty string", fs.ErrInvalid)}
	}
	if hasWindowsDrive(s, false) {
		s = "/" + s
	}
	var scheme, authority string
	start := 0
	colon := strings.IndexByte(s, ':')
	slash := strings.IndexAny(s, `/\`)
	if colon != -1 && (slash == -1 || colon < slash) {
		scheme = s[:colon]
		start = colon + 1
		if err := checkScheme(scheme); err != nil {
			return Path{}, &fs.PathError{Op: "parse", Path: s, Err: err}
		}
		scheme = strings.ToLower(scheme)
	}
	if rest := s[start:]; len(rest) > 2 && isSep(rest[0]) && isSep(rest[1]) {
		end := strings.IndexAny(rest[2:], `/\`)
		if end < 0 {
			end = len(rest)
		} else {
			end += 2
		}
		authority = rest[2:end]
		start += end
	}
	p := Path{scheme: scheme, authority: authority, path: normalizePath(s[start:])}
	if p.path == "" && authority != "" {
		p.path = "/"
	}
	if err := p.check(); err != nil {
		return Path{}, &fs.PathError{Op: "parse", Path: s, Err: err}
	}
	return p, nil
}

// MustPath is NewPath that panics on error, for constants in programs and tests.
func MustPath(s string) Path {
	p, err := NewPath(s)
	if err != nil {
		panic(err)
	}
	return p
}

func isSep(c byte) bool { return c == '/' || c == '\\' }

func checkScheme(s string) error {
	if s == "" {
		return fmt.Errorf("%w: empty scheme before ':'", fs.ErrInvalid)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return fmt.Errorf("%w: illegal character %q in scheme %q (expected a letter followed by letters, digits, '+', '-' or '.')", fs.ErrInvalid, c, s)
		}
	}
	return nil
}

// check enforces the URI rule that a scheme or authority needs an absolute path.
func (p Path) check() error {
	if p.scheme != "" && !strings.HasPrefix(p.path, "/") {
		if p.path == "" {
			return fmt.Errorf("%w: %s: has a scheme but no path (expected %s:///path or %s://authority/path)", fs.ErrInvalid, p.scheme, p.scheme, p.scheme)
		}
		return fmt.Errorf("%w: relative path %q after scheme %q (expected an absolute path, such as %s:///%s)", fs.ErrInvalid, p.path, p.scheme, p.scheme, p.path)
	}
	return nil
}

// hasWindowsDrive reports whether path starts with a drive letter ("C:"), after a
// leading slash when slashed.
func hasWindowsDrive(path string, slashed bool) bool {
	start := 0
	if slashed {
		start = 1
	}
	if len(path) < start+2 || (slashed && path[0] != '/') || path[start+1] != ':' {
		return false
	}
	c := path[start]
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// normalizePath applies Flink's normalization plus dot-segment resolution.
func normalizePath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if p == "" {
		return ""
	}
	abs := strings.HasPrefix(p, "/")
	c := path.Clean(p)
	if abs && hasWindowsDrive(c, true) && len(c) == 3 {
		c += "/" // Windows root "/C:/" keeps its slash
	}
	return c
}

// Scheme returns the scheme in lower case, or "" when there is none.
func (p Path) Scheme() string { return p.scheme }

// Authority returns the authority (host, bucket, ...), or "" when there is none.
func (p Path) Authority() string { return p.authority }

// Path returns the normalized path part, '/'-separated ("/a/b", "rel/x", "/").
func (p Path) Path() string { return p.path }

// IsZero reports whether p is the zero Path (no path at all).
func (p Path) IsZero() bool { return p == Path{} }

// IsAbsolute reports whether the path part starts at a root ("/x", "/C:/x").
func (p Path) IsAbsolute() bool {
	pp := p.Path()
	start := 0
	if hasWindowsDrive(pp, true) {
		start = 3
	}
	return strings.HasPrefix(pp[start:], "/")
}

// Name returns the last segment: "b" for "/a/b", "" for the root.
func (p Path) Name() string {
	pp := p.Path()
	return pp[strings.LastIndexByte(pp, '/')+1:]
}

// Parent returns the parent directory: "/a" for "/a/b", "/" for "/a", "." for a
// single relative segment, and the zero Path for the root, "." and the zero Path.
func (p Path) Parent() Path {
	pp := p.Path()
	start := 0
	if hasWindowsDrive(pp, true) {
		start = 3
	}
	last := strings.LastIndexByte(pp, '/')
	if len(pp) == start || (last == start && len(pp) == start+1) || pp == "." {
		return Path{}
	}
	var parent string
	switch {
	case last == -1:
		parent = "."
	case last == start:
		parent = pp[:start+1]
	default:
		parent = pp[:last]
	}
	return Path{scheme: p.scheme, authority: p.authority, path: parent}
}

// Depth returns the number of segments: "/" is 0, "/a/b" is 2, "a" is 1. A Windows
// drive is not a segment: "C:/" is 0.
func (p Path) Depth() int {
	pp := p.Path()
	if hasWindowsDrive(pp, true) {
		pp = pp[3:]
	}
	if pp == "" || pp == "/" {
		return 0
	}
	d := 0
	slash := 0
	for slash != -1 {
		d++
		next := strings.IndexByte(pp[slash+1:], '/')
		if next == -1 {
			break
		}
		slash += next + 1
	}
	return d
}

// Resolve resolves child against p as Flink's new Path(parent, child) does: a child
// with a scheme stands alone; otherwise one leading "/" of the child is stripped and
// the child is resolved relative to p as a directory, so "..", "." work.
func (p Path) Resolve(child string) (Path, error) {
	c, err := NewPath(child)
	if err != nil {
		return Path{}, err
	}
	if c.scheme != "" {
		return c, nil
	}
	scheme, authority := p.scheme, p.authority
	if c.authority != "" {
		authority = c.authority
	}
	cp := strings.TrimPrefix(c.path, "/")
	base := p.Path()
	var joined string
	switch {
	case base == "" || base == ".":
		joined = cp
	case cp == "" || cp == ".":
		joined = base
	default:
		joined = base + "/" + cp
	}
	if joined == "" {
		joined = "."
	}
	r := Path{scheme: scheme, authority: authority, path: normalizePath(joined)}
	if err := r.check(); err != nil {
		return Path{}, &fs.PathError{Op: "resolve", Path: child, Err: err}
	}
	return r, nil
}

// Join appends plain segments to p, like path.Join: empty elements are ignored,
// "." and ".." resolve. Joining onto the zero Path gives a relative path.
func (p Path) Join(elem ...string) Path {
	parts := make([]string, 0, len(elem)+1)
	if base := p.Path(); base != "" {
		parts = append(parts, base)
	}
	for _, e := range elem {
		if e != "" {
			parts = append(parts, strings.ReplaceAll(e, `\`, "/"))
		}
	}
	if len(parts) == 0 {
		return p
	}
	return Path{scheme: p.scheme, authority: p.authority, path: normalizePath(strings.Join(parts, "/"))}
}

// Suffix returns the path with s appended to its last segment: "/a/b" + ".tmp" is
// "/a/b.tmp".
func (p Path) Suffix(s string) Path {
	pp := p.Path()
	if pp == "" {
		pp = "."
	}
	return Path{scheme: p.scheme, authority: p.authority, path: normalizePath(pp + s)}
}

// MakeQualified returns p with fsys's scheme and authority, resolving a relative p
// against fsys's working directory, like Flink's Path.makeQualified.
func (p Path) MakeQualified(fsys FileSystem) Path {
	q := p
	if !q.IsAbsolute() {
		wd := fsys.WorkingDirectory()
		joined := wd.Path()
		if rel := q.Path(); rel != "" && rel != "." {
			joined += "/" + rel
		}
		q = Path{scheme: wd.scheme, authority: wd.authority, path: normalizePath(joined)}
	}
	u := fsys.URI()
	if q.scheme != "" && (q.authority != "" || u.Host == "") {
		return q
	}
	if q.scheme == "" {
		q.scheme = strings.ToLower(u.Scheme)
	}
	if q.authority == "" {
		q.authority = authorityOf(u)
	}
	if q.path == "" {
		q.path = "/"
	}
	return q
}

// authorityOf returns the authority of u (user info and host).
func authorityOf(u *url.URL) string {
	if u.User != nil {
		return u.User.String() + "@" + u.Host
	}
	return u.Host
}

// String returns the path in a form that NewPath parses back to p:
// "s3://bucket/a", "file:///tmp/x", "/tmp/x", "C:/x", "rel/x". The zero Path is "".
func (p Path) String() string {
	var b strings.Builder
	pp := p.Path()
	if p.scheme != "" {
		b.WriteString(p.scheme)
		b.WriteString(":")
	}
	if p.authority != "" || p.scheme != "" {
		b.WriteString("//")
		b.WriteString(p.authority)
	}
	switch {
	case p.scheme == "" && p.authority == "" && hasWindowsDrive(pp, true):
		pp = pp[1:] // "/C:/x" prints as "C:/x"
	case p.scheme == "" && p.authority == "" && !strings.HasPrefix(pp, "/") && needsDotSlash(pp):
		pp = "./" + pp
	}
	b.WriteString(pp)
	return b.String()
}

// needsDotSlash reports whether a relative path would parse as something else: a
// first segment with a colon looks like a scheme or a drive.
func needsDotSlash(rel string) bool {
	first := rel
	if i := strings.IndexByte(rel, '/'); i >= 0 {
		first = rel[:i]
	}
	return strings.Contains(first, ":")
}

// URI returns p as a *url.URL (scheme, authority as user info and host, path).
func (p Path) URI() *url.URL {
	u := &url.URL{Scheme: p.scheme, Path: p.Path()}
	if p.authority != "" {
		host := p.authority
		if i := strings.LastIndexByte(host, '@'); i >= 0 {
			u.User = parseUserInfo(host[:i])
			host = host[i+1:]
		}
		u.Host = host
	}
	if p.scheme == "" && p.authority == "" {
		u.OmitHost = true
	}
	return u
}

func parseUserInfo(s string) *url.Userinfo {
	if user, pass, ok := strings.Cut(s, ":"); ok {
		return url.UserPassword(user, pass)
	}
	return url.User(s)
}

// FileSystem returns the file system that serves p, from the default Registry.
func (p Path) FileSystem(ctx context.Context) (FileSystem, error) {
	if p.IsZero() {
		return nil, &fs.PathError{Op: "get", Path: "", Err: errors.New("zero Path has no file system")}
	}
	return defaultRegistry.getForPath(ctx, p, "")
}

// MarshalText implements encoding.TextMarshaler with String.
func (p Path) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with NewPath.
func (p *Path) UnmarshalText(b []byte) error {
	q, err := NewPath(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

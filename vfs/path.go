package vfs

import (
	"context"
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
//   - a Windows drive "C:/x" (or "C:\x") becomes "/C:/x", and "C:" alone is a
//     relative path; drives exist only in local paths (no scheme, or file:):
//     on s3://, memory:// and every other scheme "/C:x" is the name "C:x" at
//     the root, so a listed name that looks like a drive reaches itself again;
//   - "?" and "#" are ordinary characters: a Path has no query or fragment;
//   - the scheme is lower-cased; an empty authority ("file:///x") is no authority.
//
// That normalization is NewPath's. ParsePath, PathOf and Join are exact: they keep
// every character of a name ("\" included), so a name from a listing reaches the
// same object again.
//
// The zero Path is "no path" (Flink's null). Path is a comparable value: equal paths
// are == and work as map keys. String returns a form that ParsePath parses back to
// the same Path (and NewPath too, unless the path has a "\"). String shows user
// info; Redacted, which errors and logs use, does not.
type Path struct {
	scheme    string
	authority string
	path      string
}

// NewPath parses s like Flink's new Path(String), for configuration strings and
// programs: a "\" in the path part becomes "/" (Flink's normalization). The empty string,
// a scheme with invalid characters and a scheme followed by a relative path
// ("s3:x") are errors that errors.Is fs.ErrInvalid. Names that come from a listing
// or a command line take the exact route instead: ParsePath, PathOf, Join.
func NewPath(s string) (Path, error) {
	return parse(s, true)
}

// ParsePath parses s exactly: like NewPath, except that "\" is an ordinary
// character of a name, never a separator. Use it for names that come from a
// listing or from a user (a command-line argument), and to read back what
// String printed: for every Path p that String prints non-empty,
// ParsePath(p.String()) == p.
//
// Precisely, ParsePath splits only on "/":
//   - a scheme is the text before the first ':' when no '/' comes before it
//     ("s3://b/k"); it is lower-cased and must be a letter followed by letters,
//     digits, '+', '-' or '.', and a single letter followed by ':' is a Windows
//     drive, as in Flink ("C:/x" is the path "/C:/x", "C:" is a relative path);
//   - after the scheme (or at the start), "//" begins an authority that runs to
//     the next '/' ("//host/share"); it is kept as written, so user info in it is
//     percent-encoded as in any URI ("u:p%2Fw@host"), and URI decodes it;
//   - the rest is the path: '?', '#', '%', '\', spaces (leading and trailing
//     included), unicode and anything that looks like an escape sequence are
//     characters of a name, and are never cut, decoded or translated;
//   - repeated '/' collapse, a trailing '/' is dropped, and "." and ".."
//     segments resolve, so the names "", "." and ".." cannot be represented
//     (PathOf refuses them).
//
// Errors are those of NewPath.
func ParsePath(s string) (Path, error) {
	return parse(s, false)
}

// parse is NewPath (flink true: "\" is a separator) or ParsePath.
func parse(s string, flink bool) (Path, error) {
	if s == "" {
		return Path{}, &fs.PathError{Op: "parse", Path: s, Err: fmt.Errorf("%w: can not create a Path from an empty string", fs.ErrInvalid)}
	}
	in := s
	if hasWindowsDrive(s, false) {
		s = "/" + s
	}
	var scheme, authority string
	start := 0
	colon := strings.IndexByte(s, ':')
	slash := strings.IndexByte(s, '/')
	if colon != -1 && (slash == -1 || colon < slash) {
		scheme = s[:colon]
		start = colon + 1
		if err := checkScheme(scheme); err != nil {
			return Path{}, &fs.PathError{Op: "parse", Path: RedactURI(in), Err: err}
		}
		scheme = strings.ToLower(scheme)
	}
	if rest := s[start:]; len(rest) > 2 && strings.HasPrefix(rest, "//") {
		end := strings.IndexByte(rest[2:], '/')
		if end < 0 {
			end = len(rest)
		} else {
			end += 2
		}
		authority = rest[2:end]
		start += end
	}
	rest := s[start:]
	if flink {
		rest = strings.ReplaceAll(rest, `\`, "/")
	}
	p := Path{scheme: scheme, authority: authority, path: normalizePath(rest, drives(scheme))}
	if p.path == "" && authority != "" {
		p.path = "/"
	}
	if err := p.check(); err != nil {
		return Path{}, &fs.PathError{Op: "parse", Path: RedactURI(in), Err: err}
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
		rel := strings.TrimPrefix(RedactURI(p.scheme+":"+p.path), p.scheme+":")
		return fmt.Errorf("%w: relative path %q after scheme %q (expected an absolute path, such as %s:///%s)", fs.ErrInvalid, rel, p.scheme, p.scheme, rel)
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

// drives reports whether paths of scheme can start with a Windows drive: only
// local paths (no scheme, or file) can. Flink reads "/C:" as a drive whatever the
// scheme; on an object store or memory:// that would turn a name such as "C:x"
// or "A:0" at the root into another path, so there it is a plain name.
func drives(scheme string) bool { return scheme == "" || scheme == "file" }

// hasDrive reports whether p's path starts with a Windows drive ("/C:").
func (p Path) hasDrive() bool { return drives(p.scheme) && hasWindowsDrive(p.path, true) }

// normalizePath applies Flink's normalization to a '/'-separated path, plus
// dot-segment resolution: repeated '/' collapse, a trailing '/' goes (except for
// the roots "/" and "/C:/"), "." and ".." resolve. A lone drive "/C:" stays as it
// is: Flink reads "C:" as a relative path.
func normalizePath(p string, drives bool) string {
	if p == "" {
		return ""
	}
	abs := strings.HasPrefix(p, "/")
	c := path.Clean(p)
	if drives && abs && len(c) == 3 && hasWindowsDrive(c, true) && p != c {
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
	if p.hasDrive() {
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
	if p.hasDrive() {
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

// Depth returns the number of segments, as Flink counts them: "/" is 0, "/a/b"
// is 2, "a" is 1, and a Windows drive counts: "C:/my/windows/path" is 4.
func (p Path) Depth() int {
	pp := p.Path()
	if pp == "/" || pp == "" {
		return 0
	}
	return 1 + strings.Count(pp[1:], "/")
}

// Resolve resolves child against p as Flink's new Path(parent, child) does: one
// leading "/" of the child is stripped and the child is resolved relative to p as
// a directory, so "..", "." work. A child with a scheme or an authority
// ("s3://other/x", "//other/x") is an error wrapping fs.ErrInvalid, as in Flink:
// resolving never switches to another file system.
func (p Path) Resolve(child string) (Path, error) {
	c, err := NewPath(child)
	if err != nil {
		return Path{}, err
	}
	if c.scheme != "" || c.authority != "" {
		return Path{}, &fs.PathError{Op: "resolve", Path: RedactURI(child), Err: fmt.Errorf(
			"%w: child path has a scheme or an authority (expected a path relative to %s)", fs.ErrInvalid, p.Redacted())}
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
	r := Path{scheme: p.scheme, authority: p.authority, path: normalizePath(joined, drives(p.scheme))}
	if err := r.check(); err != nil {
		return Path{}, &fs.PathError{Op: "resolve", Path: RedactURI(child), Err: err}
	}
	return r, nil
}

// Join appends '/'-separated elements to p, like path.Join: empty elements and
// empty segments are ignored, "." and ".." resolve, and every other character is
// kept as it is ("\", "?", "%", spaces...), so Join of a listed name reaches
// that name. Joining onto the zero Path gives a relative path.
func (p Path) Join(elem ...string) Path {
	if len(elem) == 1 {
		if q, ok := p.child(elem[0]); ok {
			return q
		}
	}
	parts := make([]string, 0, len(elem)+1)
	if base := p.Path(); base != "" {
		parts = append(parts, base)
	}
	for _, e := range elem {
		if e != "" {
			parts = append(parts, e)
		}
	}
	if len(parts) == 0 {
		return p
	}
	return Path{scheme: p.scheme, authority: p.authority, path: normalizePath(strings.Join(parts, "/"), drives(p.scheme))}
}

// child is Join of one plain name (not "", "." or "..", no '/') onto a
// path that has one, outside local paths (where "/" + a drive name becomes a
// drive root): the path part is already normalized, so the name is appended
// as it is, with no second pass over the whole path. ok is false where Join
// must normalize.
func (p Path) child(name string) (Path, bool) {
	base := p.path
	if base == "" || base == "." || drives(p.scheme) || name == "" || name == "." || name == ".." || strings.IndexByte(name, '/') >= 0 {
		return Path{}, false
	}
	if base[len(base)-1] == '/' {
		return Path{scheme: p.scheme, authority: p.authority, path: base + name}, true
	}
	return Path{scheme: p.scheme, authority: p.authority, path: base + "/" + name}, true
}

// PathOf builds an absolute Path from a scheme, an authority and literal names,
// exactly: each segment is one name, kept byte for byte. It is the constructor
// for names that come from a listing. scheme may be "" (no scheme) and authority
// "" (no authority); no segments is the root. Errors wrap fs.ErrInvalid and name
// the value: an invalid scheme, an authority with a '/', and a segment that is
// not a name ("", ".", "..", or one with a '/').
func PathOf(scheme, authority string, segments ...string) (Path, error) {
	bad := func(what string, v string, why string) error {
		return &fs.PathError{Op: "path of", Path: scheme + "://" + RedactAuthority(authority) + "/" + Redact(strings.Join(segments, "/")),
			Err: fmt.Errorf("%w: %s %q %s", fs.ErrInvalid, what, v, why)}
	}
	if scheme != "" {
		if err := checkScheme(scheme); err != nil {
			return Path{}, &fs.PathError{Op: "path of", Path: scheme, Err: err}
		}
	}
	if strings.Contains(authority, "/") {
		return Path{}, bad("authority", "//"+RedactAuthority(authority), "has a '/' (expected host, bucket or user@host)")
	}
	for _, s := range segments {
		if s == "" || s == "." || s == ".." || strings.Contains(s, "/") {
			return Path{}, bad("segment", s, `is not a name (expected a name without '/', other than "", "." and "..")`)
		}
	}
	return Path{scheme: strings.ToLower(scheme), authority: authority, path: "/" + strings.Join(segments, "/")}, nil
}

// Suffix returns the path with s appended to its last segment: "/a/b" + ".tmp" is
// "/a/b.tmp".
func (p Path) Suffix(s string) Path {
	pp := p.Path()
	if pp == "" {
		pp = "."
	}
	return Path{scheme: p.scheme, authority: p.authority, path: normalizePath(pp+s, drives(p.scheme))}
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
		q = Path{scheme: wd.scheme, authority: wd.authority, path: normalizePath(joined, drives(wd.scheme))}
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

// String returns the path in a form that ParsePath parses back to p, with every
// character as it is (no escaping): "s3://bucket/a", "s3://bucket/" (a root
// keeps its slash), "file:///tmp/x", "/tmp/x", "C:/x", "rel/x", "./a:b" (a
// relative path whose first name has a ':'). The zero Path is "". It includes
// user info: print Redacted instead.
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

// URI returns p as a *url.URL: scheme, authority as user info and host, path.
// Percent-encoded user info is decoded ("u:p%2Fw@h" has the password "p/w"); the
// path is taken literally ("%" is a character of a name) and u.String() escapes
// what it must.
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
	user, pass, ok := strings.Cut(s, ":")
	user, pass = unescapeUserInfo(user), unescapeUserInfo(pass)
	if ok {
		return url.UserPassword(user, pass)
	}
	return url.User(user)
}

// unescapeUserInfo decodes %XX escapes, keeping s as it is when it is not
// validly escaped.
func unescapeUserInfo(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// FileSystem returns the file system that serves p, from the default Registry
// (see Registry.GetPath).
func (p Path) FileSystem(ctx context.Context) (FileSystem, error) {
	return defaultRegistry.GetPath(ctx, p)
}

// MarshalText implements encoding.TextMarshaler with String.
func (p Path) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParsePath, so that
// MarshalText's output always reads back to the same Path.
func (p *Path) UnmarshalText(b []byte) error {
	q, err := ParsePath(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// Rel returns the path of p relative to dir, '/'-separated ("" when p is
// dir), and whether p is dir or lies below it: the same scheme and authority,
// and dir's path a prefix of p's that ends at a segment boundary ("/a/bc" is
// not below "/a/b"). dir.Join(rel) is p again. Paths are compared as they
// are: qualify both the same way first (MakeQualified) when one may lack the
// scheme.
func (p Path) Rel(dir Path) (string, bool) {
	if p.scheme != dir.scheme || p.authority != dir.authority {
		return "", false
	}
	pp, dp := p.Path(), dir.Path()
	if pp == dp {
		return "", true
	}
	if !strings.HasSuffix(dp, "/") {
		dp += "/"
	}
	if rest, ok := strings.CutPrefix(pp, dp); ok {
		return rest, true
	}
	return "", false
}

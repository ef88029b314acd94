package vfs

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Factory creates the FileSystem for one (scheme, authority). uri carries the
// scheme, the authority (as user info and host), the path "/" and, on the first use
// of that authority, any query parameters the caller gave (for example
// s3://bucket?region=eu-west-1). A factory should validate the authority and return
// an error that names the offending value.
type Factory func(ctx context.Context, uri *url.URL) (FileSystem, error)

// Registry maps URI schemes to factories and caches one FileSystem per (scheme,
// authority), like Flink's FileSystem.get. It is safe for concurrent use: when many
// goroutines ask for the same uncached key at once, the factory runs once and all of
// them get its result. A failed factory call is not cached.
//
// The zero Registry is not usable; call NewRegistry.
type Registry struct {
	mu            sync.Mutex
	factories     map[string]Factory
	defaultScheme Path
	cache         map[cacheKey]*cacheEntry
	queries       map[string][]string // scheme -> query parameter names (DeclareQuery)
	identities    map[string]Identity // scheme -> location rule (RegisterIdentity)
}

type cacheKey struct{ scheme, authority string }

type cacheEntry struct {
	done chan struct{}
	fsys FileSystem
	err  error
}

// NewRegistry returns an empty registry whose default scheme is "file".
func NewRegistry() *Registry {
	return &Registry{
		factories:     map[string]Factory{},
		defaultScheme: Path{scheme: "file", path: "/"},
		cache:         map[cacheKey]*cacheEntry{},
		queries:       map[string][]string{},
		identities:    map[string]Identity{},
	}
}

var defaultRegistry = NewRegistry()

// DefaultRegistry returns the process-wide registry that Register, Get and
// Path.FileSystem use.
func DefaultRegistry() *Registry { return defaultRegistry }

// Register adds a factory for scheme (case-insensitive). It fails when the scheme
// is invalid or already registered.
func (r *Registry) Register(scheme string, f Factory) error {
	if err := checkScheme(scheme); err != nil {
		return fmt.Errorf("vfs: register: %w", err)
	}
	if len(scheme) == 1 {
		return fmt.Errorf("vfs: register %q: %w: a single-letter scheme reads as a Windows drive letter (expected two or more characters)", scheme, fs.ErrInvalid)
	}
	if f == nil {
		return fmt.Errorf("vfs: register %q: %w: nil factory", scheme, fs.ErrInvalid)
	}
	scheme = strings.ToLower(scheme)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.factories[scheme]; dup {
		return fmt.Errorf("vfs: register %q: %w: scheme is already registered", scheme, fs.ErrExist)
	}
	r.factories[scheme] = f
	return nil
}

// Unregister removes scheme's factory and location rule and forgets the file systems cached for it
// (they are not closed: whoever holds one may go on using it). Unregistering a
// scheme that is not registered does nothing. It is meant for tests; see
// RegisterTest.
func (r *Registry) Unregister(scheme string) {
	scheme = strings.ToLower(scheme)
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.factories, scheme)
	delete(r.queries, scheme)
	delete(r.identities, scheme)
	for k := range r.cache {
		if k.scheme == scheme {
			delete(r.cache, k)
		}
	}
}

// TB is the part of testing.TB that RegisterTest uses (vfs does not import
// package testing).
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// RegisterTest registers f for scheme for the duration of the test tb and
// unregisters it (Unregister) when the test ends, so a test that registers a
// scheme can run again (go test -count=2) and tests registering the same
// scheme one after another do not collide. A scheme that is registered already
// (by a backend's init, or by a test still running) fails the test with
// tb.Fatalf.
func (r *Registry) RegisterTest(tb TB, scheme string, f Factory) {
	tb.Helper()
	if err := r.Register(scheme, f); err != nil {
		tb.Fatalf("%v", err)
		return
	}
	tb.Cleanup(func() { r.Unregister(scheme) })
}

// Schemes returns the registered schemes, sorted.
func (r *Registry) Schemes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.schemesLocked()
}

func (r *Registry) schemesLocked() []string {
	s := make([]string, 0, len(r.factories))
	for k := range r.factories {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// SetDefaultScheme sets the scheme (and authority, if uri has one) applied to
// scheme-less paths, like Flink's fs.default-scheme. uri must have a scheme:
// "memory://demo/", "s3://bucket/", "file:///".
func (r *Registry) SetDefaultScheme(uri string) error {
	p, err := NewPath(uri)
	if err != nil {
		return err
	}
	if p.scheme == "" {
		return &fs.PathError{Op: "set default scheme", Path: RedactURI(uri), Err: fmt.Errorf("%w: no scheme (expected a URI such as file:/// or s3://bucket/)", fs.ErrInvalid)}
	}
	r.mu.Lock()
	r.defaultScheme = p
	r.mu.Unlock()
	return nil
}

// DefaultScheme returns the URI applied to scheme-less paths ("file:///" unless set).
func (r *Registry) DefaultScheme() Path {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.defaultScheme
}

// Get returns the FileSystem for uri, which may be any path on it
// ("s3://bucket/a/b", "/tmp/x", "memory://demo/"). When uri is a full URI
// ("scheme://..."), a query after its first '?' is passed to the factory on the
// first use of the (scheme, authority); in a scheme-less path '?' is a character.
// A '?' inside "user:password@" is refused (fs.ErrInvalid, the URI redacted):
// user info must be percent-encoded.
// Errors: an empty or unparsable uri (fs.ErrInvalid), an unknown scheme
// (ErrUnsupportedScheme, naming the scheme and the registered ones),
// "file://host/x" (fs.ErrInvalid, with a hint). To get the file system of a Path,
// whose names may have a '?', use GetPath.
func (r *Registry) Get(ctx context.Context, uri string) (FileSystem, error) {
	if scheme, authority, ok := splitSimple(uri); ok {
		if fsys := r.cached(cacheKey{scheme, authority}); fsys != nil {
			return fsys, nil
		}
	}
	base, query := uri, ""
	if strings.Contains(uri, "://") {
		base, query, _ = strings.Cut(uri, "?")
		if rawUserInfoQuery(uri) {
			return nil, &fs.PathError{Op: "get", Path: RedactURI(uri), Err: fmt.Errorf(
				"%w: the user info holds a raw '?' (expected it percent-encoded, as %%3F)", fs.ErrInvalid)}
		}
	}
	p, err := ParsePath(base)
	if err != nil {
		return nil, err
	}
	return r.getForPath(ctx, p, query)
}

// GetPath returns the FileSystem that serves p (its scheme and authority, or the
// default scheme), like Get without a query: p's names are never read as one.
func (r *Registry) GetPath(ctx context.Context, p Path) (FileSystem, error) {
	if p.IsZero() {
		return nil, &fs.PathError{Op: "get", Path: "", Err: fmt.Errorf("%w: zero Path has no file system", fs.ErrInvalid)}
	}
	return r.getForPath(ctx, p, "")
}

func (r *Registry) getForPath(ctx context.Context, p Path, query string) (FileSystem, error) {
	r.mu.Lock()
	if p.scheme == "" {
		d := r.defaultScheme
		p.scheme = d.scheme
		if p.authority == "" {
			p.authority = d.authority
		}
	}
	if p.scheme == "file" && p.authority != "" {
		r.mu.Unlock()
		full := RedactURI("file://" + p.authority + p.Path())
		authority := RedactAuthority(p.authority)
		return nil, &fs.PathError{Op: "get", Path: full, Err: fmt.Errorf(
			"%w: found local file path with authority '%s' in path '%s'; hint: did you forget a slash? (correct path would be 'file:///%s%s')",
			fs.ErrInvalid, authority, full, authority, p.Path())}
	}
	f, ok := r.factories[p.scheme]
	if !ok {
		err := &UnsupportedSchemeError{Scheme: p.scheme, URI: p.Redacted(), Registered: r.schemesLocked()}
		r.mu.Unlock()
		if r != defaultRegistry {
			defaultRegistry.mu.Lock()
			_, err.InDefaultRegistry = defaultRegistry.factories[p.scheme]
			defaultRegistry.mu.Unlock()
		}
		return nil, err
	}
	key := cacheKey{p.scheme, p.authority}
	if e, ok := r.cache[key]; ok {
		r.mu.Unlock()
		select {
		case <-e.done: // the common case, without a two-way select
			return e.fsys, e.err
		default:
		}
		select {
		case <-e.done:
			return e.fsys, e.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	e := &cacheEntry{done: make(chan struct{})}
	r.cache[key] = e
	r.mu.Unlock()

	u := Path{scheme: p.scheme, authority: p.authority, path: "/"}.URI()
	u.RawQuery = query
	e.fsys, e.err = callFactory(ctx, f, u)
	if e.err != nil {
		r.mu.Lock()
		delete(r.cache, key)
		r.mu.Unlock()
	}
	close(e.done)
	return e.fsys, e.err
}

// rawUserInfoQuery reports whether the first '?' of uri (a "scheme://" URI) is
// inside its user info, which is then "user:password" with a raw '?' in it
// ("gs://svc:pa?ss@b/x"), rather than the start of a query (after a host,
// "h:8333", or a bucket: "gs://b?access_id=svc@p.example").
func rawUserInfoQuery(uri string) bool {
	rest := uri[strings.Index(uri, "://")+3:]
	q := strings.IndexByte(rest, '?')
	if q < 0 || userInfoEnd(rest) < q {
		return false
	}
	c := strings.IndexByte(rest[:q], ':')
	return c >= 0 && !IsPort(rest[c+1:q])
}

// splitSimple returns the scheme and authority of a URI of the common form
// "scheme://authority/path" (a lower-case scheme of two or more characters, no
// '?'), which are exactly those ParsePath finds in it, so that Get finds a
// cached file system without parsing; ok is false for any other form.
func splitSimple(uri string) (scheme, authority string, ok bool) {
	i := strings.Index(uri, "://")
	if i < 2 || strings.IndexByte(uri, '?') >= 0 {
		return "", "", false
	}
	for k := range i {
		c := uri[k]
		if !('a' <= c && c <= 'z' || k > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", "", false
		}
	}
	rest := uri[i+3:]
	if end := strings.IndexByte(rest, '/'); end >= 0 {
		rest = rest[:end]
	}
	return uri[:i], rest, true
}

// cached returns the file system cached under key, or nil when there is none
// (yet, or its factory failed).
func (r *Registry) cached(key cacheKey) FileSystem {
	r.mu.Lock()
	e := r.cache[key]
	r.mu.Unlock()
	if e == nil {
		return nil
	}
	select {
	case <-e.done:
		return e.fsys // nil after a failure
	default:
		return nil
	}
}

// callFactory turns a factory panic into an error, so one bad factory cannot leave
// waiters blocked forever.
func callFactory(ctx context.Context, f Factory, u *url.URL) (fsys FileSystem, err error) {
	defer func() {
		if v := recover(); v != nil {
			fsys, err = nil, fmt.Errorf("vfs: factory for %q panicked: %s", RedactURL(u), Redact(fmt.Sprint(v)))
		}
	}()
	fsys, err = f(ctx, u)
	if err == nil && fsys == nil {
		err = fmt.Errorf("vfs: factory for %q returned no file system", RedactURL(u))
	}
	return fsys, err
}

// Register adds a factory to the default registry. It panics when the scheme is
// invalid or already registered: it is meant for backend init functions.
func Register(scheme string, f Factory) {
	if err := defaultRegistry.Register(scheme, f); err != nil {
		panic(err)
	}
}

// RegisterTest registers f for scheme on the default registry for the
// duration of the test tb (see Registry.RegisterTest).
func RegisterTest(tb TB, scheme string, f Factory) {
	tb.Helper()
	defaultRegistry.RegisterTest(tb, scheme, f)
}

// Get returns the FileSystem for uri from the default registry.
func Get(ctx context.Context, uri string) (FileSystem, error) {
	return defaultRegistry.Get(ctx, uri)
}

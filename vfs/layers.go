package vfs

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
)

// Layer wraps the file system that a scheme's factory made for uri, such as a
// connection limit around every s3:// bucket. It returns the file system to use
// instead (or an error, which Get returns).
type Layer func(ctx context.Context, uri *url.URL, fsys FileSystem) (FileSystem, error)

// AddLayer makes every file system that r creates for scheme from now on pass
// through l, as Flink's ConnectionLimitingFactory wraps a scheme's factory.
// Layers added later wrap the earlier ones. File systems of scheme that r has
// already cached are dropped from its cache, so that the next Get creates a
// wrapped one; callers that hold one keep it unwrapped. It fails when scheme
// is not registered (ErrUnsupportedScheme) or l is nil (fs.ErrInvalid).
func (r *Registry) AddLayer(scheme string, l Layer) error {
	if l == nil {
		return fmt.Errorf("vfs: add layer to %q: %w: nil layer", scheme, fs.ErrInvalid)
	}
	scheme = strings.ToLower(scheme)
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.factories[scheme]
	if !ok {
		return &UnsupportedSchemeError{Scheme: scheme, URI: scheme + "://", Registered: r.schemesLocked()}
	}
	r.factories[scheme] = func(ctx context.Context, uri *url.URL) (FileSystem, error) {
		fsys, err := f(ctx, uri)
		if err != nil || fsys == nil {
			return fsys, err
		}
		return l(ctx, uri, fsys)
	}
	for k := range r.cache {
		if k.scheme == scheme {
			delete(r.cache, k)
		}
	}
	return nil
}

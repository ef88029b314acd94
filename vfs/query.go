package vfs

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// DeclareQuery records the query parameters that scheme's factory accepts
// ("region", "endpoint", ...). Tools that take URIs from users (the vfskit CLI)
// read a "?" as the start of a query only for a scheme that declared one, only
// right after the authority ("s3://bucket?region=eu-west-1/key"), and only when
// every parameter in it is declared; anywhere else, and in every name a
// listing shows, "?" is an ordinary character of a name. It fails when scheme is invalid or a name is
// empty or holds '=', '&' or '?'. Declaring again adds names.
func (r *Registry) DeclareQuery(scheme string, names ...string) error {
	if err := checkScheme(scheme); err != nil {
		return fmt.Errorf("vfs: declare query: %w", err)
	}
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, "=&?") {
			return fmt.Errorf("vfs: declare query of %q: %w: parameter name %q (expected a non-empty name without '=', '&' or '?')", scheme, fs.ErrInvalid, n)
		}
	}
	scheme = strings.ToLower(scheme)
	r.mu.Lock()
	defer r.mu.Unlock()
	q := append(r.queries[scheme], names...)
	slices.Sort(q)
	r.queries[scheme] = slices.Compact(q)
	return nil
}

// QueryParameters returns the query parameter names declared for scheme
// (case-insensitive), sorted; nil when the scheme declared none.
func (r *Registry) QueryParameters(scheme string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.queries[strings.ToLower(scheme)])
}

// DeclareQuery declares query parameters on the default registry (see
// Registry.DeclareQuery). It panics on an invalid scheme or name: it is meant
// for backend init functions.
func DeclareQuery(scheme string, names ...string) {
	if err := defaultRegistry.DeclareQuery(scheme, names...); err != nil {
		panic(err)
	}
}

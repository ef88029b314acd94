package cli

import (
	"context"
	"fmt"
	"net/url"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/cli/clischeme"
	"github.com/vfskit/vfskit/vfs"
)

// Option configures the command line Run and Main execute: which URI schemes,
// beyond file:// (and plain paths) and memory://, its registry serves. The
// cloud schemes come as sets from their own packages (clis3, cligcs,
// cliazblob), so a program links only the SDKs of the schemes it serves.
type Option func(*config)

// config is what the Options chose.
type config struct {
	sets    []clischeme.Set
	schemes []scheme
}

// scheme is one scheme added with WithScheme.
type scheme struct {
	name     string
	factory  vfs.Factory
	query    []string
	identity vfs.Identity
}

// WithScheme serves scheme (case-insensitive, two or more characters) with f in
// every command line, as vfs.Registry.Register would; query names the query
// parameters f accepts on a URI ("myfs://a/x?zone=1"), see
// vfs.Registry.DeclareQuery. A scheme given twice, or one that clashes with a
// built-in (file, memory, and those of WithSchemes' sets), makes every
// command line fail with exit status 1 and an error naming the scheme.
func WithScheme(name string, f vfs.Factory, query ...string) Option {
	return func(c *config) { c.schemes = append(c.schemes, scheme{name: name, factory: f, query: query}) }
}

// WithSchemes serves the schemes of each set in every command line, with
// their flags (clis3.Schemes() adds s3://, s3a:// and s3p:// and the
// --endpoint, --region, --profile and --path-style flags; cligcs.Schemes()
// gs://; cliazblob.Schemes() azblob://). A scheme given twice makes every
// command line fail with exit status 1 and an error naming the scheme.
func WithSchemes(sets ...clischeme.Set) Option {
	return func(c *config) { c.sets = append(c.sets, sets...) }
}

// newConfig applies opts.
func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// registry builds the registry one command line runs with: a new one, so that
// nothing a command line does reaches vfs's default registry or a backend's
// process-wide settings. A set's schemes use the factory its Factory returns
// once the flags are parsed (see setupSchemes).
func (a *app) registry() (*vfs.Registry, error) {
	reg := vfs.NewRegistry()
	all := []scheme{
		{name: local.Scheme, factory: local.Factory, identity: local.Identity},
		{name: memfs.Scheme, factory: memfs.Factory},
	}
	a.factories = make([]vfs.Factory, len(a.cfg.sets))
	for i, set := range a.cfg.sets {
		for _, s := range set.Schemes {
			all = append(all, scheme{name: s.Name, factory: a.setFactory(i), query: set.Query, identity: s.Identity})
		}
	}
	for _, s := range append(all, a.cfg.schemes...) {
		if err := reg.Register(s.name, s.factory); err != nil {
			return nil, err
		}
		if len(s.query) > 0 {
			if err := reg.DeclareQuery(s.name, s.query...); err != nil {
				return nil, err
			}
		}
		if s.identity != nil {
			if err := reg.RegisterIdentity(s.name, s.identity); err != nil {
				return nil, err
			}
		}
	}
	return reg, nil
}

// setFactory serves the schemes of set i with the factory setupSchemes made.
func (a *app) setFactory(i int) vfs.Factory {
	return func(ctx context.Context, uri *url.URL) (vfs.FileSystem, error) {
		f := a.factories[i]
		if f == nil {
			return nil, fmt.Errorf("%s: the command line has not set up its schemes", uri.Scheme)
		}
		return f(ctx, uri)
	}
}

// setupSchemes makes each set's factory, once the flags are parsed. An error
// (a malformed flag value) is a usage error.
func (a *app) setupSchemes() error {
	for i, set := range a.cfg.sets {
		if set.Factory == nil {
			return fmt.Errorf("the set of scheme %s has no Factory", set.Schemes[0].Name)
		}
		f, err := set.Factory(clischeme.Env{Log: a.log})
		if err != nil {
			return usageErr(err)
		}
		a.factories[i] = f
	}
	return nil
}

// storage is the checkpoint storage option that makes checkpointstorage reach
// files through the command line's registry.
func (a *app) storage() checkpointstorage.Option { return checkpointstorage.WithRegistry(a.reg) }

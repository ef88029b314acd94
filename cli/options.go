package cli

import (
	"context"
	"fmt"
	"net/url"

	"github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/backends/gcs"
	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

// Option configures the command line Run and Main execute: which URI schemes,
// beyond file:// (and plain paths) and memory://, its registry serves.
type Option func(*config)

// config is what the Options chose.
type config struct {
	s3, gcs, azblob bool
	schemes         []scheme
}

// scheme is one scheme added with WithScheme.
type scheme struct {
	name    string
	factory vfs.Factory
	query   []string
}

// WithScheme serves scheme (case-insensitive, two or more characters) with f in
// every command line, as vfs.Registry.Register would; query names the query
// parameters f accepts on a URI ("myfs://a/x?zone=1"), see
// vfs.Registry.DeclareQuery. A scheme given twice, or one that clashes with a
// built-in (file, memory, and those of WithS3, WithGCS, WithAzblob), makes every
// command line fail with exit status 1 and an error naming the scheme.
func WithScheme(name string, f vfs.Factory, query ...string) Option {
	return func(c *config) { c.schemes = append(c.schemes, scheme{name: name, factory: f, query: query}) }
}

// WithS3 serves s3://, s3a:// and s3p:// (Amazon S3 and S3-compatible stores)
// and adds the --endpoint, --region, --profile and --path-style flags that
// configure them. Settings the flags do not give come from the AWS environment
// variables and shared config files, as for the library.
func WithS3() Option { return func(c *config) { c.s3 = true } }

// WithGCS serves gs:// (Google Cloud Storage, configured from the environment as
// gocloud's gcsblob is).
func WithGCS() Option { return func(c *config) { c.gcs = true } }

// WithAzblob serves azblob:// (Azure Blob Storage, configured from the
// environment as gocloud's azureblob is).
func WithAzblob() Option { return func(c *config) { c.azblob = true } }

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
// process-wide settings. The s3 schemes read the S3 flags when a bucket is
// first used (after the flags are parsed).
func (a *app) registry() (*vfs.Registry, error) {
	reg := vfs.NewRegistry()
	all := []scheme{
		{name: local.Scheme, factory: local.Factory},
		{name: memfs.Scheme, factory: memfs.Factory},
	}
	if a.cfg.s3 {
		for _, s := range s3.Schemes {
			all = append(all, scheme{name: s, factory: a.s3Factory, query: s3.QueryParameters})
		}
	}
	if a.cfg.gcs {
		all = append(all, scheme{name: gcs.Scheme, factory: gcs.Factory(gcs.Options{}), query: gcs.QueryParameters})
	}
	if a.cfg.azblob {
		all = append(all, scheme{name: azblob.Scheme, factory: azblob.Factory(azblob.Options{}), query: azblob.QueryParameters})
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
	}
	return reg, nil
}

// s3Factory serves the s3 schemes with the options the S3 flags gave.
func (a *app) s3Factory(ctx context.Context, uri *url.URL) (vfs.FileSystem, error) {
	return s3.Factory(a.s3Opts)(ctx, uri)
}

// s3Options returns the s3 options the flags give. Flags that are not given
// leave the setting to the AWS SDK's default chain. A malformed --endpoint is a
// usage error.
func (f *s3Flags) options() (s3.Options, error) {
	var o s3.Options
	if f.endpoint != "" {
		u, err := url.Parse(f.endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return o, usageErr(fmt.Errorf("invalid --endpoint %q: expected an http:// or https:// URL such as http://127.0.0.1:8333", f.endpoint))
		}
	}
	o.Endpoint, o.Region, o.Profile, o.PathStyle = f.endpoint, f.region, f.profile, f.pathStyle
	return o, nil
}

// storage is the checkpoint storage option that makes checkpointstorage reach
// files through the command line's registry.
func (a *app) storage() checkpointstorage.Option { return checkpointstorage.WithRegistry(a.reg) }

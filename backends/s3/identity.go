package s3

import (
	"context"
	"errors"

	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/vfs"
)

func init() {
	for _, s := range Schemes {
		vfs.RegisterIdentity(s, Identity)
	}
}

// Identity is the location rule (vfs.Identity) of s3://, s3a:// and s3p://:
// an s3a:// or s3p:// path is the s3:// path of the same bucket and key when
// the registry serves that bucket on s3:// at the same endpoint (as the
// default registry and the command line do: one set of options for the three
// schemes), so the three spellings of one object are one location. Where
// s3:// is not registered, or serves the bucket from another endpoint, the
// path stays as written: another store. Both file systems come from r (no
// request is sent); an error making either is returned.
func Identity(ctx context.Context, r *vfs.Registry, p vfs.Path) (vfs.Path, error) {
	if p.Scheme() == "s3" {
		return p, nil
	}
	alias, err := r.GetPath(ctx, p)
	if err != nil {
		return vfs.Path{}, err
	}
	s3p, err := p.WithScheme("s3", p.Authority())
	if err != nil {
		return vfs.Path{}, err
	}
	main, err := r.GetPath(ctx, s3p)
	var unsupported *vfs.UnsupportedSchemeError
	if errors.As(err, &unsupported) {
		return p, nil
	}
	if err != nil {
		return vfs.Path{}, err
	}
	if e := endpointOf(alias); e != "" && e == endpointOf(main) {
		return s3p, nil
	}
	return p, nil
}

// endpointOf names the endpoint an s3 file system sends its requests to, ""
// when fsys is not one of this package's.
func endpointOf(fsys vfs.FileSystem) string {
	b, ok := fsys.(*blobfs.FileSystem)
	var c *awss3.Client
	if !ok || !b.Bucket().As(&c) {
		return ""
	}
	return describeEndpoint(c)
}

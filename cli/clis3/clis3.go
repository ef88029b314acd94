// Package clis3 adds s3://, s3a:// and s3p:// (Amazon S3 and S3-compatible
// stores) to the vfskit command line, with the flags that configure them:
// --endpoint, --region, --profile and --path-style.
//
//	cli.Main(cli.WithSchemes(clis3.Schemes()))
//
// Settings the flags do not give come from the AWS environment variables
// (AWS_ACCESS_KEY_ID, AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL_S3, ...) and the
// shared config and credentials files (~/.aws/config, ~/.aws/credentials), as
// for the library. The flags configure only the command line's own file
// systems, never the s3 backend's process-wide options.
package clis3

import (
	"fmt"
	"net/url"

	"github.com/spf13/pflag"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/cli/clischeme"
	"github.com/vfskit/vfskit/vfs"
)

// Schemes returns the set of s3 schemes, with a fresh set of flags.
func Schemes() clischeme.Set {
	f := &flags{}
	return clischeme.Set{
		Schemes: []clischeme.Scheme{
			{Name: "s3", Example: "s3://bucket/key", What: "Amazon S3 and S3-compatible stores (MinIO, SeaweedFS, ...)", Identity: s3.Identity,
				Aliases: []string{"s3n", "aws", "minio"}},
			{Name: "s3a", Example: "s3a://bucket/key", What: "the same as s3:// (Flink's and Hadoop's name)", Identity: s3.Identity},
			{Name: "s3p", Example: "s3p://bucket/key", What: "the same as s3:// (Flink's Presto name)", Identity: s3.Identity},
		},
		Query:   s3.QueryParameters,
		Flags:   f.register,
		Factory: f.factory,
	}
}

// flags are the persistent S3 settings.
type flags struct {
	endpoint  string
	region    string
	profile   string
	pathStyle bool
}

// register adds the flags to fs.
func (f *flags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.endpoint, "endpoint", "", "S3 endpoint URL for s3:// URIs, e.g. http://127.0.0.1:8333 (default: AWS_ENDPOINT_URL_S3, the profile's, or AWS)")
	fs.StringVar(&f.region, "region", "", "S3 signing region (default: AWS_REGION, the profile's, or us-east-1)")
	fs.StringVar(&f.profile, "profile", "", "profile of the shared AWS config and credentials files for s3:// URIs (default: AWS_PROFILE or \"default\")")
	fs.BoolVar(&f.pathStyle, "path-style", false, "address S3 buckets in the path (http://host/bucket/key), as most S3-compatible stores need")
}

// factory returns the s3 factory with the options the flags give. Flags that
// are not given leave the setting to the AWS SDK's default chain. A malformed
// --endpoint is an error naming it.
func (f *flags) factory(env clischeme.Env) (vfs.Factory, error) {
	if f.endpoint != "" {
		u, err := url.Parse(f.endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("invalid --endpoint %q: expected an http:// or https:// URL such as http://127.0.0.1:8333", vfs.RedactURI(f.endpoint))
		}
	}
	return s3.Factory(s3.Options{Endpoint: f.endpoint, Region: f.region, Profile: f.profile, PathStyle: f.pathStyle, Logger: env.Log}), nil
}

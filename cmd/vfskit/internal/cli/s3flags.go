package cli

import (
	"context"
	"fmt"
	"net/url"

	"github.com/spf13/pflag"
	"github.com/vfskit/vfskit/backends/s3"
)

// s3Flags are the persistent S3 settings. Everything else (credentials,
// profile, and region and endpoint when these flags are not given) comes from
// the same places the library reads it: the AWS environment variables
// (AWS_ACCESS_KEY_ID, AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL_S3, ...) and
// the shared config and credentials files (~/.aws/config, ~/.aws/credentials).
type s3Flags struct {
	endpoint  string
	region    string
	profile   string
	pathStyle bool
}

// register adds the flags to fs.
func (f *s3Flags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.endpoint, "endpoint", "", "S3 endpoint URL for s3:// URIs, e.g. http://127.0.0.1:8333 (default: AWS_ENDPOINT_URL_S3, the profile's, or AWS)")
	fs.StringVar(&f.region, "region", "", "S3 signing region (default: AWS_REGION, the profile's, or us-east-1)")
	fs.StringVar(&f.profile, "profile", "", "profile of the shared AWS config and credentials files for s3:// URIs (default: AWS_PROFILE or \"default\")")
	fs.BoolVar(&f.pathStyle, "path-style", false, "address S3 buckets in the path (http://host/bucket/key), as most S3-compatible stores need")
}

// apply hands the settings to the s3 backend (s3.SetOptions) before any s3://
// file system is created. Flags that are not given leave the backend's options
// as they are. A malformed --endpoint is a usage error.
func (f *s3Flags) apply(context.Context) error {
	if f.endpoint == "" && f.region == "" && f.profile == "" && !f.pathStyle {
		return nil
	}
	o := s3.CurrentOptions()
	if f.endpoint != "" {
		u, err := url.Parse(f.endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageErr(fmt.Errorf("invalid --endpoint %q: expected an http:// or https:// URL such as http://127.0.0.1:8333", f.endpoint))
		}
		o.Endpoint = f.endpoint
	}
	if f.region != "" {
		o.Region = f.region
	}
	if f.profile != "" {
		o.Profile = f.profile
	}
	if f.pathStyle {
		o.PathStyle = true
	}
	s3.SetOptions(o)
	return nil
}

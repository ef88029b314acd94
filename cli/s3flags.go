package cli

import (
	"github.com/spf13/pflag"
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

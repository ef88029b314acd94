package cli

import (
	"context"

	"github.com/spf13/pflag"
)

// s3Flags are the persistent S3 settings. Everything else (credentials, region,
// profile) comes from the same places as the library reads them: the AWS
// environment variables and shared config/credentials files.
type s3Flags struct {
	endpoint  string
	pathStyle bool
}

func (f *s3Flags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.endpoint, "endpoint", "", "S3 endpoint URL for s3:// URIs, e.g. http://127.0.0.1:8333 (default: AWS, or AWS_ENDPOINT_URL_S3)")
	fs.BoolVar(&f.pathStyle, "path-style", false, "address S3 buckets in the path (http://host/bucket/key), as most S3-compatible stores need")
}

// apply hands the settings to the s3 backend before any s3:// file system is
// created.
func (f *s3Flags) apply(ctx context.Context) error {
	return nil
}

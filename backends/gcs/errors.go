package gcs

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"cloud.google.com/go/storage"
	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"

	"github.com/vfskit/vfskit/backends/internal/httpguard"
	"github.com/vfskit/vfskit/vfs"
)

// describer replaces the errors a user must act on with a short message
// naming the bucket, the cause and the fix (see Options.Logger).
type describer struct {
	bucket string
	log    *slog.Logger
}

// describe is blobfs.Options.DescribeError.
func (d describer) describe(err error) error { return httpguard.Describe(d.log, "gcs", err, d.short) }

func (d describer) short(err error) error {
	short := func(format string, args ...any) error {
		return &httpguard.Error{Msg: fmt.Sprintf(format, args...), Err: vfs.RedactError(err)}
	}
	endpoint, fix := "storage.googleapis.com", "check the network"
	if host := os.Getenv(EmulatorHostEnv); host != "" {
		endpoint, fix = host, "check "+EmulatorHostEnv
	}
	if cause, ok := httpguard.Unreachable(err); ok {
		return short("cannot reach endpoint %s: %s; %s", endpoint, cause, fix)
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return short("Google refused the credentials for bucket %q: check GOOGLE_APPLICATION_CREDENTIALS or run 'gcloud auth application-default login'", d.bucket)
	}
	noBucket := func() error {
		return &httpguard.Error{Msg: fmt.Sprintf("bucket %q does not exist at %s: check the bucket's name, or create it", d.bucket, endpoint),
			Err: vfs.RedactError(err), Kind: vfs.ErrBucketNotExist}
	}
	if errors.Is(err, storage.ErrBucketNotExist) {
		return noBucket()
	}
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		return err
	}
	switch {
	case ge.Code == 404 && bucketMissing(ge, d.bucket):
		return noBucket()
	case ge.Code == 401:
		return short("Google refused the credentials for bucket %q: check GOOGLE_APPLICATION_CREDENTIALS or run 'gcloud auth application-default login'", d.bucket)
	case ge.Code == 403:
		return short("access denied to bucket %q: the credentials lack the permission (check the bucket's IAM roles for the account of GOOGLE_APPLICATION_CREDENTIALS)", d.bucket)
	}
	return err
}

// bucketMissing reports whether a 404 is about the bucket, not an object.
func bucketMissing(ge *googleapi.Error, bucket string) bool {
	text := strings.ReplaceAll(strings.ToLower(ge.Message+" "+ge.Body), strings.ToLower(bucket), "")
	return strings.Contains(text, "bucket") && (strings.Contains(text, "not exist") || strings.Contains(text, "not found"))
}

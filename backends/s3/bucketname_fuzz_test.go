package s3

import (
	"errors"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var validBucket = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// FuzzCheckBucketName checks that the bucket-name validator never panics, accepts
// only names that follow S3's rules, and names the bucket when it refuses.
func FuzzCheckBucketName(f *testing.F) {
	for _, s := range []string{"my-bucket", "a.b.c", "", "ab", "UPPER", "x..y", "10.0.0.1", "-a-", strings.Repeat("a", 64), "ünï"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := checkBucketName(name)
		if err == nil {
			if !validBucket.MatchString(name) || strings.Contains(name, "..") {
				t.Fatalf("accepted invalid bucket name %q", name)
			}
			return
		}
		if !errors.Is(err, fs.ErrInvalid) {
			t.Fatalf("refusal of %q does not wrap fs.ErrInvalid: %v", name, err)
		}
		if name != "" && !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Fatalf("refusal of %q does not name it: %v", name, err)
		}
	})
}
